"""What the peers driving a real `guest serve` with the official `openai` and `ollama` clients
share: what a client raised as the tests read it, a streamed tool call put back together, the
brain of an ollama answer, the `get_time` tool. A peer finds it with

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../TestSupport/peers"))
"""
import httpx
import ollama
import openai

GET_TIME = {"type": "function", "function": {"name": "get_time", "description": "the current time",
            "parameters": {"type": "object", "properties": {}, "additionalProperties": False}}}


def raised(e):
    """The JSON a peer prints for what its client raised: the type, the HTTP status where there
    was one, the message."""
    if isinstance(e, openai.APIStatusError):
        return {"raised": type(e).__name__, "status": e.status_code, "message": str(e)}
    if isinstance(e, ollama.ResponseError):
        return {"raised": "ResponseError", "status": e.status_code, "message": str(e.error)}
    return {"raised": type(e).__name__, "message": str(e)}


def gather_call(calls, tc):
    """Adds one streamed openai tool-call delta to `calls` (by index): its id and name once, its
    arguments' pieces in order."""
    c = calls.setdefault(tc.index, {"id": None, "name": None, "arguments": ""})
    c["id"] = c["id"] or tc.id
    if tc.function and tc.function.name:
        c["name"] = tc.function.name
    if tc.function and tc.function.arguments:
        c["arguments"] += tc.function.arguments


def ollama_brain(base, messages):
    """Who answers an ollama chat of `messages` at `base`: the ollama client keeps no extra
    fields, so it is read from a raw answer (one more short request)."""
    body = {"model": "default", "messages": messages, "stream": False, "options": {"num_predict": 2}}
    return (httpx.post(base + "/api/chat", json=body, timeout=120).json().get("homebase") or {}).get("brain")
