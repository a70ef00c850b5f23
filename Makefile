# lakeops: `make demo` and `make test` set up everything they need on first use.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := $(CURDIR)/.venv
BIN := $(VENV)/bin
JARS := $(CURDIR)/build/jars
PY_FILES := $(CURDIR)/build/lakeops.zip
CLASS_ARCHIVE := $(JARS)/lakeops-classes.jsa
TEST_SERVERS := $(CURDIR)/build/test-servers
TEST_KAFKA := $(CURDIR)/build/kafka
PG_INITDB := /usr/lib/postgresql/15/bin/initdb

export LAKEOPS_DATA_DIR ?= $(CURDIR)/.lakeops
export LAKEOPS_CONFIG ?= $(CURDIR)/include/lakeops.yaml
export LAKEOPS_JARS_DIR := $(JARS)
export LAKEOPS_TEST_SERVERS_DIR := $(TEST_SERVERS)
export LAKEOPS_TEST_KAFKA_DIR := $(TEST_KAFKA)
export AIRFLOW_HOME ?= $(LAKEOPS_DATA_DIR)/airflow
export AIRFLOW__CORE__DAGS_FOLDER := $(CURDIR)/dags
export AIRFLOW__CORE__LOAD_EXAMPLES := False
# Local Spark: the JSON form; an unencoded spark://local[*] URI silently falls back to YARN.
export AIRFLOW_CONN_LAKEOPS_SPARK ?= {"conn_type": "spark", "host": "local[*]"}
export PATH := $(BIN):$(PATH)
export PYSPARK_PYTHON := $(BIN)/python
SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)

.PHONY: help setup demo test airflow lock check-tools test-deps compose-cli clean browser postgresql

help:
	@echo "make demo     set up, land an hour of data, ingest it through Airflow, print a summary"
	@echo "make test     set up and run the whole test suite (ruff and mypy first)"
	@echo "make unit     the unit tests alone (no JVM, under a minute)"
	@echo "make airflow  start 'airflow standalone' with these DAGs and plugins (http://localhost:8080)"
	@echo "make lock     re-resolve requirements.txt into requirements.lock"
	@echo "make bench-NAME  run one benchmark (python -m benchmarks NAME; BENCH_ARGS=--quick for a short check); figures in docs/benchmarks.md"

# LAKEOPS_CLASS_ARCHIVE=none: no class archive is built (or used).
setup: check-tools $(VENV)/.installed $(JARS)/.resolved $(PY_FILES) $(if $(filter none,$(LAKEOPS_CLASS_ARCHIVE)),,$(CLASS_ARCHIVE))

# What only the test suite needs: the e2e servers, Kafka with Debezium, PostgreSQL, the compose validator and a browser.
test-deps: $(TEST_SERVERS)/.resolved $(TEST_KAFKA)/.resolved postgresql compose-cli browser

check-tools:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null || \
	  { echo "Python 3.11 is required (found: $$($(PYTHON) --version 2>&1)). Install it, or run make PYTHON=/path/to/python3.11"; exit 1; }
	@command -v java >/dev/null && java -version 2>&1 | grep -q 'version "17' || \
	  { echo "Java 17 is required by Spark 4.1 (found: $$(java -version 2>&1 | head -1)). Install it: apt-get install openjdk-17-jdk-headless"; exit 1; }
	@command -v mvn >/dev/null || { echo "Maven is required to resolve the Iceberg jars. Install it: apt-get install maven"; exit 1; }

# lakeops itself goes in editable, so Airflow finds its plugin and provider through the package's
# entry points as it would in an installed lakeops (no plugins folder). The build leaves
# lakeops.egg-info in the checkout's root: on sys.path there (python -c, pytest) it would be a
# second copy of those entry points and Airflow would register the plugin twice, so it goes.
$(VENV)/.installed: requirements.lock pyproject.toml
	@echo "== installing Python packages from requirements.lock into .venv"
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/pip install -q --upgrade pip
	@$(BIN)/pip install -q -r requirements.lock
	@$(BIN)/pip install -q --no-deps -e .
	@rm -rf lakeops.egg-info
	@$(BIN)/pip check >/dev/null || { $(BIN)/pip check; echo "requirements.lock and the dependency ranges in pyproject.toml disagree (above): align requirements.txt with them and run make lock"; exit 1; }
	@touch $@

$(JARS)/.resolved: include/jvm/pom.xml
	@echo "== resolving Spark jars from Maven Central into build/jars"
	@rm -rf $(JARS) && mkdir -p $(JARS)
	@mvn -q -B -f include/jvm/pom.xml dependency:copy-dependencies -DexcludeTransitive=true -DoutputDirectory=$(JARS)
	@touch $@

# The driver JVMs' class-data-sharing archive (lakeops.class_archive): one training run per set of jars and
# Spark; every lakeops spark-submit then maps it instead of loading the same classes from the jars.
$(CLASS_ARCHIVE): $(JARS)/.resolved $(VENV)/.installed
	@echo "== building the driver JVMs' class archive (a training run of the events ingest, about 2 minutes)"
	@$(BIN)/python -m lakeops.class_archive $@

# S3Proxy and Iceberg's REST catalog server for the end-to-end tests (a classpath: transitive).
$(TEST_SERVERS)/.resolved: include/jvm/test-servers/pom.xml
	@echo "== resolving the end-to-end test servers (S3Proxy, Iceberg REST catalog) from Maven Central into build/test-servers"
	@rm -rf $(TEST_SERVERS) && mkdir -p $(TEST_SERVERS)
	@mvn -q -B -f include/jvm/test-servers/pom.xml dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory=$(TEST_SERVERS)
	@touch $@

# A Kafka broker (KRaft), a Kafka Connect worker and Debezium's PostgreSQL connector, one classpath (transitive).
$(TEST_KAFKA)/.resolved: include/jvm/kafka/pom.xml
	@echo "== resolving Kafka, Kafka Connect and Debezium's PostgreSQL connector from Maven Central into build/kafka"
	@rm -rf $(TEST_KAFKA) && mkdir -p $(TEST_KAFKA)
	@mvn -q -B -f include/jvm/kafka/pom.xml dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory=$(TEST_KAFKA)
	@touch $@

# PostgreSQL 15 (Debian's package): the tests start throwaway clusters of it for Debezium and the SQL/JDBC catalogs.
postgresql:
	@test -x $(PG_INITDB) || { echo "== installing Debian's postgresql (throwaway clusters for the CDC and catalog tests)"; \
	  { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq postgresql >/dev/null; } || \
	  { echo "PostgreSQL 15 is required by the CDC and catalog tests. Install it: apt-get install postgresql"; exit 1; }; }

# Debian's docker-compose validates docker-compose.yaml (`config` needs no Docker engine).
compose-cli:
	@command -v docker-compose >/dev/null || { echo "== installing Debian's docker-compose (validates docker-compose.yaml)"; \
	  { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq docker-compose >/dev/null; } || \
	  { echo "docker-compose is required by the compose test. Install it: apt-get install docker-compose"; exit 1; }; }

$(PY_FILES): $(VENV)/.installed $(shell find include/lakeops -name '*.py' 2>/dev/null)
	@$(BIN)/python -c 'from lakeops.runtime import build_library_archive as b; b("$(PY_FILES)")'
	@echo "== built build/lakeops.zip for --py-files"

$(AIRFLOW_HOME)/.migrated: $(VENV)/.installed
	@mkdir -p $(AIRFLOW_HOME)
	@airflow db migrate >$(AIRFLOW_HOME)/migrate.log 2>&1 || { cat $(AIRFLOW_HOME)/migrate.log; exit 1; }
	@airflow pools set lakeops_spark 2 "lakeops Spark jobs: ingestion and maintenance share these slots" >>$(AIRFLOW_HOME)/migrate.log 2>&1
	@touch $@

demo: setup $(AIRFLOW_HOME)/.migrated
	@$(BIN)/python -m lakeops.demo

# The whole suite, after lint and types (pyproject.toml's ruff and mypy settings): they fail in seconds.
# Two pytest-xdist workers; the tests of the shared servers all run on one (tests/workers.py). TEST_WORKERS=0 runs serially.
TEST_WORKERS ?= 2
test: setup lint test-deps
	@$(BIN)/python -m pytest $(if $(filter-out 0,$(TEST_WORKERS)),-n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder) $(PYTEST_ARGS)

.PHONY: lint unit
lint: $(VENV)/.installed
	@$(BIN)/ruff check .
	@$(BIN)/mypy

# The unit tests alone: no JVM, no servers, under a minute.
unit: $(VENV)/.installed
	@$(BIN)/python -m pytest tests/unit $(PYTEST_ARGS)

# The table-health page is tested in headless Chromium (Debian's package); installed when absent.
CHROMIUM := /usr/bin/chromium
browser:
	@test -x $(CHROMIUM) || { echo "== installing chromium (Debian) for the browser tests"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium >/dev/null; }

airflow: setup $(AIRFLOW_HOME)/.migrated
	@airflow standalone

# One command per benchmark: make bench-zonemaps runs python -m benchmarks zonemaps (BENCH_ARGS=--quick: a
# few minutes). `python -m benchmarks` lists the names.
bench-%: setup $(AIRFLOW_HOME)/.migrated
	@$(BIN)/python -m benchmarks $* $(BENCH_ARGS)

lock:
	@rm -rf build/lockvenv && $(PYTHON) -m venv build/lockvenv
	@build/lockvenv/bin/pip install -q --upgrade pip && build/lockvenv/bin/pip install -q -r requirements.txt
	@{ echo "# Every package lakeops installs, pinned. Generated from requirements.txt by \`make lock\`; installs use this file."; \
	   build/lockvenv/bin/pip freeze --exclude-editable; } > requirements.lock
	@rm -rf build/lockvenv && echo "requirements.lock updated"

clean:
	rm -rf build .venv .lakeops
