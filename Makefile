# jitscope -- top-level build.
#
#   make          build build/libjitscope_agent.so, build/jitscope and build/bench/replay
#   make run      install what is missing, build, start the server with the demo app
#   make test     install what is missing, build, run every test (unit, e2e, browser)
#   make lint     static checks: banned C calls, clang-format, eslint, shellcheck
#                 (scripts/lint.sh; LINT_SKIP=format leaves one out)
#   make asan     the same binaries built with -fsanitize=address,undefined (build/asan/)
#   make bench    the benchmarks (bench/), results in docs/BENCHMARKS.md
#                 (BENCH="suspend sampling" runs only those)
#   make deps     only install what is missing (Debian packages, npm packages)

CC       ?= gcc
BUILD    := build
PORT     ?= 8642
CSTD     := -std=c11 -D_GNU_SOURCE -Iproto
WARN     := -Wall -Wextra -Werror
OPT      ?= -O2 -g
PKGS     := libmicrohttpd jansson libcurl libwebsockets
SERVER_CFLAGS = $(CSTD) $(WARN) $(OPT) $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
SERVER_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lpthread
# The agent lives inside the target: libc and pthreads only, nothing exported
# but DllGetClassObject, no global constructors or destructors.
AGENT_CFLAGS  = $(CSTD) $(WARN) $(OPT) -fPIC -fvisibility=hidden -pthread
AGENT_LDFLAGS = -shared -Wl,-z,defs -Wl,--no-undefined -pthread

# proto/ is the wire format and what both sides of it need; agent/ and server/
# include it and never each other.
PROTO_SRC  := $(wildcard proto/*.c)
PROTO_HDR  := $(wildcard proto/*.h)
AGENT_SRC  := $(wildcard agent/*.c) $(PROTO_SRC)
SERVER_SRC := $(wildcard server/*.c) $(PROTO_SRC)
AGENT_HDR  := $(wildcard agent/*.h) $(PROTO_HDR)
SERVER_HDR := $(wildcard server/*.h) $(PROTO_HDR)

AGENT_SO   := $(BUILD)/libjitscope_agent.so
SERVER_BIN := $(BUILD)/jitscope
REPLAY_BIN := $(BUILD)/bench/replay
ASAN       := -fsanitize=address,undefined -fno-omit-frame-pointer

.PHONY: all run test asan deps deps-test clean bench unit e2e browser lint
all: $(AGENT_SO) $(SERVER_BIN) $(REPLAY_BIN)

include tests/apps/apps.mk

$(AGENT_SO): $(AGENT_SRC) $(AGENT_HDR) | $(BUILD)/deps.stamp
	@mkdir -p $(@D)
	$(CC) $(AGENT_CFLAGS) $(AGENT_SRC) $(AGENT_LDFLAGS) -o $@

$(SERVER_BIN): $(SERVER_SRC) $(SERVER_HDR) | $(BUILD)/deps.stamp
	@mkdir -p $(@D)
	$(CC) $(SERVER_CFLAGS) $(SERVER_SRC) $(SERVER_LIBS) -o $@

# The native agent stand-in for load tests and benchmarks (bench/replay.c).
$(REPLAY_BIN): bench/replay.c proto/wire_encode.c proto/utf.c $(PROTO_HDR)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(OPT) -pthread bench/replay.c proto/wire_encode.c proto/utf.c -o $@

# Sanitizer builds: the agent is loaded into `dotnet`, which is not built with
# ASan, so the runtime is preloaded by the tests (LD_PRELOAD=$(ASAN_RT)).
$(BUILD)/asan/libjitscope_agent.so: $(AGENT_SRC) $(AGENT_HDR) | $(BUILD)/deps.stamp
	@mkdir -p $(@D)
	$(CC) $(AGENT_CFLAGS) $(ASAN) $(AGENT_SRC) -shared -pthread $(ASAN) -o $@

$(BUILD)/asan/jitscope: $(SERVER_SRC) $(SERVER_HDR) | $(BUILD)/deps.stamp
	@mkdir -p $(@D)
	$(CC) $(SERVER_CFLAGS) $(ASAN) $(SERVER_SRC) $(SERVER_LIBS) $(ASAN) -o $@

asan: $(BUILD)/asan/libjitscope_agent.so $(BUILD)/asan/jitscope

# ---- dependencies: installed by the project itself, only what is missing ----

$(BUILD)/deps.stamp: scripts/deps.sh
	@mkdir -p $(@D)
	scripts/deps.sh build
	@touch $@

deps: $(BUILD)/deps.stamp

# Test-only extras (node packages for the browser and WebSocket tests, chromium).
$(BUILD)/deps-test.stamp: scripts/deps.sh tests/package.json
	scripts/deps.sh test
	@touch $@

deps-test: $(BUILD)/deps.stamp $(BUILD)/deps-test.stamp

# ---- running ----
run: all apps
	@echo "jitscope: starting the demo app under the agent (Ctrl-C stops)"
	$(SERVER_BIN) run --port $(PORT) -- $(DOTNET) $(DEMO_DLL)

# ---- tests ----
UNIT_TESTS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/test_*.c))

$(BUILD)/tests/test_%: tests/unit/test_%.c $(filter-out server/main.c,$(SERVER_SRC)) $(filter-out agent/profiler.c agent/events.c agent/sender.c agent/conn.c agent/naming.c agent/catchup.c agent/describe.c agent/names_resolve.c,$(AGENT_SRC)) $(SERVER_HDR) | $(BUILD)/deps.stamp
	@mkdir -p $(@D)
	$(CC) $(SERVER_CFLAGS) $(ASAN) -DRING_TEST_HOOK -pthread -Iagent -Iserver $< \
	  $(filter-out server/main.c,$(SERVER_SRC)) \
	  agent/ring.c agent/names.c agent/sig.c \
	  $(SERVER_LIBS) $(ASAN) -ldl -o $@

# The wire decoder's fuzz target with a standalone driver (gcc has no libFuzzer).
FUZZ_BIN := $(BUILD)/tests/fuzz_wire_decode
FUZZ_SRC := proto/wire_decode.c proto/utf.c proto/idmap.c server/session.c server/stacks.c server/profile.c server/timeline.c server/grow.c
$(FUZZ_BIN): tests/fuzz/fuzz.h tests/fuzz/driver.c tests/fuzz/fuzz_wire_decode.c $(FUZZ_SRC) $(SERVER_HDR) | $(BUILD)/deps.stamp
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(OPT) $(ASAN) -pthread -Iagent -Iserver tests/fuzz/driver.c \
	  tests/fuzz/fuzz_wire_decode.c $(FUZZ_SRC) $(ASAN) -o $@

# The method-signature decoder's fuzz target, same driver.
FUZZ_SIG_BIN := $(BUILD)/tests/fuzz_sig
$(FUZZ_SIG_BIN): tests/fuzz/fuzz.h tests/fuzz/driver.c tests/fuzz/fuzz_sig.c agent/sig.c agent/sig.h | $(BUILD)/deps.stamp
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(OPT) $(ASAN) -DFUZZ_NAME=\"fuzz_sig\" -pthread -Iagent tests/fuzz/driver.c \
	  tests/fuzz/fuzz_sig.c agent/sig.c $(ASAN) -o $@

unit: $(UNIT_TESTS) $(FUZZ_BIN) $(FUZZ_SIG_BIN)

test: all asan apps $(UNIT_TESTS) $(FUZZ_BIN) $(FUZZ_SIG_BIN) deps-test
	@tests/run.sh

lint: deps-test
	@scripts/lint.sh

bench: all apps
	bench/run.sh $(BENCH)

clean:
	rm -rf $(BUILD)
