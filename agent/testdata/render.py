# Renders the golden conversation with Python's jinja2 the way Hugging
# Face transformers renders chat templates, to check gonja's output. The
# template comes on stdin; for our tiny model (synth.ChatTemplate):
#   python3 agent/testdata/render.py < synth.jinja | diff - agent/testdata/synth_hermes.golden
import json, sys
from jinja2.sandbox import ImmutableSandboxedEnvironment

def raise_exception(msg):
    raise Exception(msg)

def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
env.filters["tojson"] = tojson
env.globals["raise_exception"] = raise_exception
tmpl = env.from_string(sys.stdin.read())

tools = [
    {"type": "function", "function": {"name": "ls", "description": "List a directory.", "parameters": {"type": "object", "properties": {"path": {"type": "string", "description": "directory"}, "all": {"type": "boolean"}}, "required": ["path"]}}},
    {"type": "function", "function": {"name": "add", "description": "Add numbers.", "parameters": {"type": "object", "properties": {"b": {"type": "integer"}, "a": {"type": "integer"}}, "required": ["b", "a"]}}},
]
messages = [
    {"role": "system", "content": "You are offgrid's assistant."},
    {"role": "user", "content": "What is in src?"},
    {"role": "assistant", "content": "", "tool_calls": [{"id": "call00001", "type": "function", "function": {"name": "ls", "arguments": {"path": "src", "all": True}}}]},
    {"role": "tool", "tool_call_id": "call00001", "name": "ls", "content": '{"success":true,"data":"main.go\\nütf8 ✓.txt","error_message":null,"error_type":"none","metadata":{"execution_time_ms":1,"data_size_bytes":20,"timestamp":0}}'},
    {"role": "assistant", "content": "Two files: main.go and ütf8 ✓.txt."},
    {"role": "user", "content": "Thanks!"},
]
sys.stdout.write(tmpl.render(messages=messages, tools=tools, add_generation_prompt=True, bos_token="", eos_token="<|endoftext|>"))
