"""A deliberately misbehaving MCP server for Interlude's tests, speaking raw JSON-RPC over
stdio (2025-11-25) so it can send what no SDK would let it send.

Usage: scripted_server.py MODE, where MODE is
  die     on tools/call, send an elicitation/create and exit before the answer arrives;
  nested  on tools/call, send an elicitation/create whose schema has a nested object;
  huge    on tools/call, send an elicitation/create whose message is 100 000 characters;
  silent  on tools/call, answer with a text at once; never answer a request it does not know
          (`server/discover` among them), as some servers in the wild do.
The other modes answer an unknown request with -32601.
For `nested` and `huge` the tool result's text is the JSON of the client's reply."""
import json
import sys

MODE = sys.argv[1]


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def elicitation():
    schema = {"type": "object", "properties": {"name": {"type": "string"}}}
    message = "Please answer"
    if MODE == "nested":
        schema["properties"]["address"] = {
            "type": "object", "properties": {"street": {"type": "string"}}}
    if MODE == "huge":
        message = "x" * 100000
    if MODE == "die":
        message = "This server will crash before you answer"
    return {"jsonrpc": "2.0", "id": "srv-1", "method": "elicitation/create",
            "params": {"message": message, "requestedSchema": schema}}


pending_call = None
for line in sys.stdin:
    msg = json.loads(line)
    method = msg.get("method")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "scripted-" + MODE, "version": "0"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {"tools": [
            {"name": "ask", "inputSchema": {"type": "object"}}]}})
    elif method == "tools/call" and MODE == "silent":
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {
            "content": [{"type": "text", "text": "silent answer"}]}})
    elif method == "tools/call":
        pending_call = msg["id"]
        send(elicitation())
        if MODE == "die":
            sys.exit(3)
    elif method is None and msg.get("id") == "srv-1":
        reply = {k: msg[k] for k in ("result", "error") if k in msg}
        send({"jsonrpc": "2.0", "id": pending_call, "result": {
            "content": [{"type": "text", "text": json.dumps(reply)}]}})
    elif "id" in msg and method is not None and MODE != "silent":
        send({"jsonrpc": "2.0", "id": msg["id"],
              "error": {"code": -32601, "message": "method not found: " + method}})
