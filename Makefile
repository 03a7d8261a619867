# The two commands a newcomer needs (README.md): `make demo` and `make test`.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup demo test lint bench flash

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV) || python3 -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev,camera]'
	touch $(STAMP)

setup: $(STAMP)

demo: $(STAMP)
	$(BIN)/jantaku demo $(ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/python bin/deadcode

test: $(STAMP)
	bash bin/ensure-services
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/pytest -q -n 2 --dist worksteal $(PYTEST_ARGS)

bench: $(STAMP)
	$(BIN)/pip install -q -e '.[dev,camera,bench]'
	$(BIN)/python bench/report.py --quick

# Put the table controller's firmware on a Pico that runs MicroPython (docs/firmware.md):
# make flash PORT=/dev/ttyACM0 [CONFIG=config.json]
PORT ?= /dev/ttyACM0
flash: $(STAMP)
	-$(BIN)/mpremote connect $(PORT) mkdir :firmware
	$(BIN)/mpremote connect $(PORT) cp firmware/*.py :firmware/ + cp firmware/main.py :main.py \
		+ cp firmware/boot.py :boot.py
	$(if $(CONFIG),$(BIN)/mpremote connect $(PORT) cp $(CONFIG) :config.json)
	$(BIN)/mpremote connect $(PORT) reset
