"""A server written against the User Interaction draft (seed 000) by hand, speaking its JSON
exactly over stdio (2025-11-25 lifecycle), without Interlude's toolkit: the host's side of the
draft is tested against it, so that the two sides are not only tested against each other.

Tools (each returns, as its text, the JSON of what it saw):
  capabilities  the `capabilities` of the client's `initialize`, as sent;
  prompt        `interaction/create` type `prompt` (the draft's example); returns the reply;
  ua            `interaction/create` type `ua`; after `{}`, waits for `interaction/notify` on
                that id, sends progress on its token, answers the notify, then returns the
                reply and the notify's params (a notify for an id it did not create is never
                answered, as the draft says);
  cancel        `interaction/create` type `prompt`, then `notifications/cancelled` for it
                0.3 s later (the person has it on screen); returns 1.5 s after that whether any
                answer to the cancelled request arrived;
  required      first call: error -32003 `interaction_required` with a `ua` in `data`; answers
                the notify for it at once; the next call succeeds.
"""
import json
import os
import select
import sys
import time

PROMPT = {
    "message": {"type": "text", "text": "Let us know some information about you."},
    "schema": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "Your full name"},
            "email": {"type": "string", "format": "email", "description": "Your email address"},
            "age": {"type": "number", "minimum": 18, "description": "Your age"},
        },
        "required": ["name", "email"],
    },
}
UA_URL = "https://oauth.example.com/authorize?client_id=abc123&state=1234567890"


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def text_result(call_id, value):
    send({"jsonrpc": "2.0", "id": call_id, "result": {
        "content": [{"type": "text", "text": json.dumps(value)}]}})


def create(request_id, interaction_id, kind, interaction):
    send({"jsonrpc": "2.0", "id": request_id, "method": "interaction/create",
          "params": {"id": interaction_id, "type": kind, "interaction": interaction}})


state = {
    "capabilities": None,
    # JSON-RPC id of our interaction/create -> (tool call id, tool, interaction id)
    "asked": {},
    # interaction id -> tool call id, for ua interactions consented to, awaiting their notify
    "awaiting_notify": {},
    "created": set(),
    "required_calls": 0,
    "cancelled": None,  # (call id, deadline, answered?)
    "notify_unanswered": [],
    "cancel_at": None,  # (call id, when to cancel srv-c)
}


def handle(msg):
    method = msg.get("method")
    mid = msg.get("id")
    if method == "initialize":
        state["capabilities"] = msg["params"].get("capabilities")
        send({"jsonrpc": "2.0", "id": mid, "result": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "seed-000-server", "version": "0"}}})
    elif method == "tools/list":
        tools = ["capabilities", "prompt", "ua", "cancel", "required"]
        send({"jsonrpc": "2.0", "id": mid, "result": {"tools": [
            {"name": t, "inputSchema": {"type": "object"}} for t in tools]}})
    elif method == "tools/call":
        tool = msg["params"]["name"]
        if tool == "capabilities":
            text_result(mid, state["capabilities"])
        elif tool == "prompt":
            state["asked"]["srv-p"] = (mid, tool, "c8ec9a71-prompt")
            state["created"].add("c8ec9a71-prompt")
            create("srv-p", "c8ec9a71-prompt", "prompt", PROMPT)
        elif tool == "ua":
            state["asked"]["srv-u"] = (mid, tool, "c8ec9a71-ua")
            state["created"].add("c8ec9a71-ua")
            create("srv-u", "c8ec9a71-ua", "ua", {
                "url": UA_URL,
                "message": {"type": "text", "text": "Please sign in to your account."}})
        elif tool == "cancel":
            create("srv-c", "cancel-me", "prompt", PROMPT)
            state["cancel_at"] = (mid, time.time() + 0.3)
        elif tool == "required":
            state["required_calls"] += 1
            if state["required_calls"] == 1:
                state["created"].add("req-1")
                state["awaiting_notify"]["req-1"] = None
                send({"jsonrpc": "2.0", "id": mid, "error": {
                    "code": -32003, "message": "interaction_required",
                    "data": {"id": "req-1", "type": "ua", "url": UA_URL,
                             "message": {"type": "text",
                                         "text": "Authorization is required to access your files."}}}})
            else:
                text_result(mid, {"calls": state["required_calls"], "done": True})
    elif method == "interaction/notify":
        iid = (msg.get("params") or {}).get("id")
        token = ((msg.get("params") or {}).get("_meta") or {}).get("progressToken")
        if iid not in state["created"] or iid not in state["awaiting_notify"]:
            # Not ours, or not for that client: the draft says never to answer.
            state["notify_unanswered"].append(iid)
            return
        call_id = state["awaiting_notify"].pop(iid)
        if token is not None:
            send({"jsonrpc": "2.0", "method": "notifications/progress", "params": {
                "progressToken": token, "progress": 50, "total": 100,
                "message": "Reticulating splines..."}})
            time.sleep(0.2)
        send({"jsonrpc": "2.0", "id": mid, "result": {}})
        if call_id is not None:
            call, reply = call_id
            text_result(call, {"reply": reply, "notify": msg.get("params")})
    elif method is None and mid in state["asked"]:
        call, tool, iid = state["asked"].pop(mid)
        reply = {k: msg[k] for k in ("result", "error") if k in msg}
        if tool == "ua" and "result" in msg:
            state["awaiting_notify"][iid] = (call, reply)
        else:
            text_result(call, reply)
    elif method is None and mid == "srv-c":
        if state["cancelled"]:
            state["cancelled"][2] = True
        elif state["cancel_at"]:
            # Answered before the cancel was even sent: the test's person answered.
            call, _ = state["cancel_at"]
            state["cancel_at"] = None
            text_result(call, {"answered_before_cancel": True})
    elif mid is not None and method is not None:
        send({"jsonrpc": "2.0", "id": mid,
              "error": {"code": -32601, "message": "method not found: " + method}})


buffer = b""
fd = sys.stdin.fileno()
while True:
    deadlines = []
    if state["cancel_at"]:
        deadlines.append(state["cancel_at"][1])
    if state["cancelled"]:
        deadlines.append(state["cancelled"][1])
    timeout = max(0.0, min(deadlines) - time.time()) if deadlines else None
    ready, _, _ = select.select([fd], [], [], timeout)
    if not ready:
        if state["cancel_at"] and state["cancel_at"][1] <= time.time():
            call, _ = state["cancel_at"]
            state["cancel_at"] = None
            send({"jsonrpc": "2.0", "method": "notifications/cancelled",
                  "params": {"requestId": "srv-c", "reason": "no longer needed"}})
            state["cancelled"] = [call, time.time() + 1.5, False]
        elif state["cancelled"] and state["cancelled"][1] <= time.time():
            call, _, answered = state["cancelled"]
            state["cancelled"] = None
            text_result(call, {"answered_after_cancel": answered})
        continue
    chunk = os.read(fd, 65536)
    if not chunk:
        break
    buffer += chunk
    while b"\n" in buffer:
        line, buffer = buffer.split(b"\n", 1)
        if line.strip():
            handle(json.loads(line))
