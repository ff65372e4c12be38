"""A deliberately misbehaving MCP server for Interlude's tests, speaking raw JSON-RPC over
stdio (2025-11-25) so it can send what no SDK would let it send.

Usage: scripted_server.py MODE, where MODE is
  die     on tools/call, send an elicitation/create and exit before the answer arrives;
  nested  on tools/call, send an elicitation/create whose schema has a nested object;
  huge    on tools/call, send an elicitation/create whose message is 100 000 characters;
  silent  on tools/call, answer with a text at once; never answer a request it does not know
          (`server/discover` among them), as some servers in the wild do;
  deep    on tools/call, answer with a result nested deeper than a JSON parser allows, then
          wait for the next message;
  garbage on tools/call, write a line that is not JSON at all, then exit (status 1), as a
          server that prints its traceback to stdout does;
  crash   on tools/call, exit at once (status 3) without answering;
  error   on tools/call, answer with a JSON-RPC error (-32603, with data);
  early   exit (status 2) before reading anything.
The other modes answer an unknown request with -32601.
For `nested` and `huge` the tool result's text is the JSON of the client's reply."""
import json
import sys

MODE = sys.argv[1]
if MODE == "early":
    sys.exit(2)


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
    elif method == "tools/call" and MODE == "deep":
        deep = "[" * 300 + "]" * 300
        sys.stdout.write('{"jsonrpc":"2.0","id":%s,"result":{"content":[],"deep":%s}}\n'
                         % (json.dumps(msg["id"]), deep))
        sys.stdout.flush()
    elif method == "tools/call" and MODE == "garbage":
        sys.stdout.write("Traceback (most recent call last): \x1b[31moops\x1b[0m\n")
        sys.stdout.flush()
        sys.exit(1)
    elif method == "tools/call" and MODE == "crash":
        sys.exit(3)
    elif method == "tools/call" and MODE == "error":
        send({"jsonrpc": "2.0", "id": msg["id"], "error": {
            "code": -32603, "message": "the database is down", "data": {"retry": False}}})
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
