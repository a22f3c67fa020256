# offgrid bench targets; the top-level Makefile includes this file.
#
# bench-data fetches the official BFCL data (Apache-2.0) for users who have
# none: the bfcl-eval wheel from the Python package index, its data files
# extracted into $(BFCL_DATA). Then: offgrid bench --data $(BFCL_DATA) …
BFCL_VERSION ?= 2026.3.23
BFCL_DATA    ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/offgrid/bfcl-$(BFCL_VERSION)

.PHONY: bench-data bench-peers
bench-data:
	@mkdir -p $(BFCL_DATA)/wheel
	pip download --no-deps --dest $(BFCL_DATA)/wheel bfcl-eval==$(BFCL_VERSION)
	python3 -c 'import glob, os, sys, zipfile; \
	  dst = sys.argv[1]; z = zipfile.ZipFile(glob.glob(os.path.join(dst, "wheel", "*.whl"))[0]); \
	  pre = "bfcl_eval/data/"; \
	  names = [n for n in z.namelist() if n.startswith(pre + "BFCL_") or n.startswith(pre + "possible_answer/BFCL_")]; \
	  [(os.makedirs(os.path.dirname(os.path.join(dst, n[len(pre):])), exist_ok=True), \
	    open(os.path.join(dst, n[len(pre):]), "wb").write(z.read(n))) for n in names]; \
	  print("BFCL data:", dst, "(%d files)" % len(names))' $(BFCL_DATA)

# bench-peers runs the same BFCL cases through node-llama-cpp (npm) on MODEL
# and scores them beside offgrid's:
#   make bench-peers MODEL=path.gguf [DATA=dir] [CATEGORY=simple] [LIMIT=50]
MODEL    ?= $(or $(OFFGRID_MODELS),$(or $(XDG_DATA_HOME),$(HOME)/.local/share)/offgrid/models)/gemma3-270m.gguf
DATA     ?= ../shared/bfcl
CATEGORY ?= simple
LIMIT    ?= 50
PEER_OUT ?= /tmp/offgrid-bench-peers
bench-peers: model
	@test -f "$(MODEL)" || { echo "make bench-peers: no model at $(MODEL); set MODEL=path/to/model.gguf" >&2; exit 1; }
	cd bench/peers && npm ci --no-audit --no-fund
	@mkdir -p $(PEER_OUT)
	node bench/peers/node-llama-cpp.mjs --model $(MODEL) --data $(DATA) --category $(CATEGORY) --limit $(LIMIT) --out $(PEER_OUT)/node-llama-cpp.json
	$(BIN) bench -m $(MODEL) --data $(DATA) --category $(CATEGORY) --limit $(LIMIT) --grammar on,off \
	  --compare $(PEER_OUT)/node-llama-cpp.json --out $(PEER_OUT)

# bench-speed measures prefill, decode (free and under the tool grammar)
# and time to the first token with offgrid bench --speed, the same
# prefill and decode with node-llama-cpp, and prints both with ratios:
#   make bench-speed [MODEL=path.gguf] [THREADS=2] [PP=512] [TG=128] [REPS=5]
THREADS ?= 2
PP      ?= 512
TG      ?= 128
REPS    ?= 5
.PHONY: bench-speed
bench-speed: model
	@test -f "$(MODEL)" || { echo "make bench-speed: no model at $(MODEL); set MODEL=path/to/model.gguf" >&2; exit 1; }
	cd bench/peers && npm ci --no-audit --no-fund
	@mkdir -p $(PEER_OUT)
	$(BIN) bench --speed -m $(MODEL) -t $(THREADS) -p $(PP) -n $(TG) -r $(REPS) --grammar-out $(PEER_OUT)/speed-tool.gbnf --json > $(PEER_OUT)/speed-offgrid.json
	node bench/peers/node-llama-cpp-speed.mjs --model $(MODEL) -t $(THREADS) -p $(PP) -n $(TG) -r $(REPS) --grammar $(PEER_OUT)/speed-tool.gbnf > $(PEER_OUT)/speed-node-llama-cpp.json
	@$(BIN) bench --speed --compare $(PEER_OUT)/speed-offgrid.json --compare $(PEER_OUT)/speed-node-llama-cpp.json

# bench-agent runs the agent task suite (bench/agent/builtin.json) on every
# catalog model, grammar on and off, and writes the reports into
# $(AGENT_OUT): make bench-agent [AGENT_MODELS="a b"] [AGENT_FLAGS=…]
AGENT_MODELS ?= qwen2.5-coder-0.5b qwen2.5-coder-1.5b gemma3-270m
AGENT_OUT    ?= /tmp/offgrid-bench-agent
AGENT_FLAGS  ?=
.PHONY: bench-agent
bench-agent: model
	@for m in $(AGENT_MODELS); do $(BIN) models pull $$m >/dev/null || exit 1; done
	$(BIN) bench --agent $(foreach m,$(AGENT_MODELS),-m $(m)) --grammar on,off --out $(AGENT_OUT) $(AGENT_FLAGS)
