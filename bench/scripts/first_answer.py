"""Time offgrid run's first answer from a cold or warmed prompt cache.

usage: first_answer.py CACHE_DIR PROJECT_DIR PROMPT [OFFGRID]

Runs `offgrid run -p PROMPT --json` in PROJECT_DIR with XDG_CACHE_HOME=CACHE_DIR
and prints, in seconds from the start of the process: the model's first
generated token (the first reply's stats: when the intent choice ended, plus
the main reply's prompt time and one token's share of its generation), the
first event shown (a tool call or text), the first token of answer text, the
end; then each reply's (prompt tokens, loaded, decoded, prompt s, generated,
generate s, at s). See docs/benchmarks.md, "First answer".
"""
import subprocess, sys, time, json, os
cache, proj, prompt = sys.argv[1], sys.argv[2], sys.argv[3]
exe = sys.argv[4] if len(sys.argv) > 4 else "offgrid"
env = dict(os.environ, XDG_CACHE_HOME=cache)
t0 = time.time()
p = subprocess.Popen([exe, "run", "-p", prompt, "--json", "--seed", "1", "--yes"], cwd=proj, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
first = None; firstev = None; reused = []
for line in p.stdout:
    try: e = json.loads(line)
    except Exception: continue
    if e.get("type") == "token" and first is None: first = time.time() - t0
    if e.get("type") in ("token","tool_call") and firstev is None: firstev = time.time() - t0
    if e.get("type") == "stats": st=e["stats"]; reused.append((st["prompt_tokens"], st["prompt_loaded"], st["prompt_decoded"], round(st.get("prompt_seconds",0),2), st["generated"], round(st.get("generate_seconds",0),2), round(time.time()-t0,2)))
p.wait()
ft = reused[0][6] + reused[1][3] + reused[1][5]/max(reused[1][4],1) if len(reused) > 1 else -1
print(f"first-token {ft:.2f} event {firstev if firstev is not None else -1:.2f} token {first if first is not None else -1:.2f} total {time.time()-t0:.2f} {reused}")
