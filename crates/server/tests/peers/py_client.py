"""The Python SDK's client (`mcp`) as a peer of `tests/sdk_peers.rs`.

It speaks MCP on its own stdin/stdout (the test serves the toolkit server on the other end),
declares sampling and roots by giving their callbacks, answers them, calls the tools the test
names and prints every result as one JSON line on stderr.

argv: <era> <sampling> <tool>...
  era:      2025-11-25 (mode "legacy": the `initialize` handshake; the server pushes its
            requests) or 2026-07-28 (mode "auto", the SDK's default: `server/discover`, which
            must settle on 2026-07-28; the server answers `input_required` and the client
            fulfils the input requests through the same callbacks, then retries)
  sampling: answer (a fixed reply) or decline (error -1, "User rejected sampling request")
"""

import json
import sys

import anyio
import mcp_types as types
from mcp import Client
from mcp.server.stdio import stdio_server


async def main() -> None:
    era, sampling, *tools = sys.argv[1:]
    if era == "2025-11-25":
        mode = "legacy"
    elif era == "2026-07-28":
        mode = "auto"
    else:
        raise ValueError(f"unknown era {era}")
    seen = []

    async def sample(context, params: types.CreateMessageRequestParams):
        seen.append(params.model_dump(mode="json", by_alias=True, exclude_none=True))
        if sampling == "decline":
            return types.ErrorData(code=-1, message="User rejected sampling request")
        asked = " ".join(m.content.text for m in params.messages)
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=f"Python model says: {asked}"),
            model="py-model",
            stop_reason="endTurn",
        )

    async def list_roots(context):
        return types.ListRootsResult(
            roots=[
                types.Root(uri="file:///py/root", name="Python Root"),
                types.Root(uri="file:///py/other"),
            ]
        )

    # The server half of the SDK's stdio transport is role-neutral: it moves JSON-RPC lines over
    # this process's own stdin/stdout, which is what a client at the far end of a pipe needs.
    client = Client(
        stdio_server(),
        mode=mode,
        sampling_callback=sample,
        list_roots_callback=list_roots,
        client_info=types.Implementation(name="interlude-py-peer", version="1.0.0"),
    )
    results = {}
    async with client:
        version = client.protocol_version
        for tool in tools:
            try:
                result = await client.call_tool(tool, {})
                results[tool] = result.model_dump(mode="json", by_alias=True, exclude_none=True)
            except Exception as e:  # reported, so that the test shows what the SDK raised
                results[tool] = {"thrown": repr(e), "code": getattr(e, "code", None)}
        # Reported before leaving: the transport's reader, a thread blocked on stdin, lets the
        # client close only once the test has closed its end of the pipe, which it does when
        # it has the report.
        report = {"protocolVersion": version, "results": results, "seen": seen}
        sys.stderr.write(json.dumps(report) + "\n")
        sys.stderr.flush()


if __name__ == "__main__":
    try:
        anyio.run(main)
    except BaseException as e:  # noqa: BLE001 - one report line whatever went wrong
        import traceback

        sys.stderr.write(json.dumps({"error": "".join(traceback.format_exception(e))}) + "\n")
        sys.exit(1)
