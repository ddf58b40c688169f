# jitscope -- top-level build.
#
#   make          build build/libjitscope_agent.so, build/jitscope and build/bench/replay
#   make run      install what is missing, build, start the server with the demo app
#                 (PORT=N for another HTTP port, DATA=DIR or DATA=none for --data)
#   make test     install what is missing, build, run every test (unit, e2e, browser);
#                 the test apps also on .NET 8 and 9 (tests/apps/apps.mk, apps-runtimes)
#   make lint     static checks: banned C calls, clang-format, eslint, shellcheck,
#                 include and call cycles, file sizes, the architecture page
#                 (scripts/lint.sh; LINT_SKIP=format leaves one out)
#   make asan     the same binaries built with -fsanitize=address,undefined (build/asan/)
#   make bench    the benchmarks (bench/), results in docs/BENCHMARKS.md
#                 (BENCH="suspend sampling" runs only those)
#   make fuzz     coverage-guided fuzzing (clang, libFuzzer) of every parser of outside
#                 input, FUZZ_SECONDS (60) per target; make fuzz-merge keeps what it found
#   make deps     only install what is missing (Debian packages, npm packages)

CC       ?= gcc
# One job per core unless the command line says otherwise (make -j1).
ifeq ($(filter -j%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(shell nproc)
endif
BUILD    := build
PORT     ?= 8642
CSTD     := -std=c11 -D_GNU_SOURCE -Iproto
WARN     := -Wall -Wextra -Werror
OPT      ?= -O2 -g
PKGS     := libmicrohttpd jansson libcurl libwebsockets sqlite3 libzstd libxxhash capstone libelf zlib \
            libprotobuf-c liblzma
# Generated at build time: pprof's profile.proto as C (protoc-c; server/pprof.c uses it).
GEN      := $(BUILD)/gen
PPROF_GEN := $(GEN)/profile.pb-c.c
SERVER_CFLAGS = $(CSTD) $(WARN) $(OPT) -I$(GEN) $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
SERVER_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lpthread
# The agent lives inside the target: libc and pthreads only, nothing exported
# but DllGetClassObject, no global constructors or destructors.
# Frame pointers in the agent: a CPU profile's walk of the agent's own threads
# then reaches their start (jitscope's cost, shown as its own).
AGENT_CFLAGS  = $(CSTD) $(WARN) $(OPT) -fPIC -fvisibility=hidden -pthread -fno-omit-frame-pointer
AGENT_LDFLAGS = -shared -Wl,-z,defs -Wl,--no-undefined -pthread

# proto/ is the wire format and what both sides of it need; agent/ and server/
# include it and never each other.
PROTO_SRC  := $(wildcard proto/*.c)
PROTO_HDR  := $(wildcard proto/*.h)
AGENT_SRC  := $(wildcard agent/*.c) $(PROTO_SRC)
SERVER_SRC := $(wildcard server/*.c) $(PROTO_SRC) $(PPROF_GEN)
AGENT_HDR  := $(wildcard agent/*.h) $(PROTO_HDR)
# What the server's sources include: headers, and the OpenAPI document that
# server/openapi_doc.c embeds (.incbin, relative to this directory).
SERVER_HDR := $(wildcard server/*.h) $(PROTO_HDR) server/openapi.json

AGENT_SO   := $(BUILD)/libjitscope_agent.so
SERVER_BIN := $(BUILD)/jitscope
REPLAY_BIN := $(BUILD)/bench/replay
ASAN       := -fsanitize=address,undefined -fno-omit-frame-pointer

.PHONY: all run test asan deps deps-test clean bench unit e2e browser lint fuzz fuzz-build fuzz-merge
all: $(AGENT_SO) $(SERVER_BIN) $(REPLAY_BIN)

include tests/apps/apps.mk

# Every source is compiled once per flavour into $(OBJ)/<flavour>/<path>.o, with
# its header dependencies (-MMD) beside it; binaries and the unit tests link
# those objects. Flavours: server, agent (-fPIC, hidden), asan-server,
# asan-agent, and unit (the agent's pure pieces with the ring's test hook).
OBJ := $(BUILD)/obj
# Objects are kept between builds: a test's own object is made by a chain of
# pattern rules, which would make it an intermediate file that make deletes
# (.PRECIOUS with a pattern does not reach it in GNU make 4.3); .SECONDARY
# with no names keeps every such file.
.SECONDARY:
.DELETE_ON_ERROR:
objs = $(patsubst %.c,$(OBJ)/$(1)/%.o,$(2))
SERVER_OBJS      := $(call objs,server,$(SERVER_SRC))
AGENT_OBJS       := $(call objs,agent,$(AGENT_SRC))
ASAN_SERVER_OBJS := $(call objs,asan-server,$(SERVER_SRC))
ASAN_AGENT_OBJS  := $(call objs,asan-agent,$(AGENT_SRC))
# What the unit tests link: the server without main(), as one archive (a test
# takes only the objects it needs), and the agent's pure, host-testable pieces.
UNIT_SERVER_LIB  := $(BUILD)/asan/libjitscope_server.a
UNIT_AGENT_SRC   := agent/ring.c agent/names.c proto/sig.c proto/mdread.c
UNIT_AGENT_OBJS  := $(call objs,unit,$(UNIT_AGENT_SRC))
UNIT_CFLAGS       = $(SERVER_CFLAGS) $(ASAN) -DRING_TEST_HOOK -pthread -Iagent -Iserver

$(OBJ)/server/%.o: %.c | $(BUILD)/deps.stamp
	@mkdir -p $(@D)
	$(CC) $(SERVER_CFLAGS) -MMD -MP -c $< -o $@
$(OBJ)/agent/%.o: %.c | $(BUILD)/deps.stamp
	@mkdir -p $(@D)
	$(CC) $(AGENT_CFLAGS) -MMD -MP -c $< -o $@
$(OBJ)/asan-server/%.o: %.c | $(BUILD)/deps.stamp
	@mkdir -p $(@D)
	$(CC) $(SERVER_CFLAGS) $(ASAN) -MMD -MP -c $< -o $@
$(OBJ)/asan-agent/%.o: %.c | $(BUILD)/deps.stamp
	@mkdir -p $(@D)
	$(CC) $(AGENT_CFLAGS) $(ASAN) -MMD -MP -c $< -o $@
$(OBJ)/unit/%.o: %.c | $(BUILD)/deps.stamp
	@mkdir -p $(@D)
	$(CC) $(UNIT_CFLAGS) -MMD -MP -c $< -o $@
# pprof's protobuf code, generated before anything that includes it is compiled: one protoc-c
# run makes both files (a grouped target, &:; with a plain rule of two targets make ran it once
# for each, side by side under -j, both writing the same files).
$(GEN)/profile.pb-c.c $(GEN)/profile.pb-c.h &: server/pprof/profile.proto | $(BUILD)/deps.stamp
	@mkdir -p $(GEN)
	protoc-c --proto_path=server/pprof --c_out=$(GEN) server/pprof/profile.proto
$(foreach f,server asan-server unit,$(OBJ)/$(f)/server/pprof.o $(OBJ)/$(f)/tests/unit/test_cpuprof.o): \
    $(GEN)/profile.pb-c.h
# server/openapi_doc.c embeds the document with .incbin, which -MMD does not see.
$(OBJ)/server/server/openapi_doc.o $(OBJ)/asan-server/server/openapi_doc.o: server/openapi.json
-include $(shell find $(OBJ) -name '*.d' 2>/dev/null)

$(AGENT_SO): $(AGENT_OBJS)
	@mkdir -p $(@D)
	$(CC) $(AGENT_CFLAGS) $^ $(AGENT_LDFLAGS) -o $@

$(SERVER_BIN): $(SERVER_OBJS)
	@mkdir -p $(@D)
	$(CC) $(SERVER_CFLAGS) $^ $(SERVER_LIBS) -o $@

# The native agent stand-in for load tests and benchmarks (bench/replay.c).
$(REPLAY_BIN): bench/replay.c proto/wire_encode.c proto/utf.c $(PROTO_HDR)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(OPT) -pthread bench/replay.c proto/wire_encode.c proto/utf.c -o $@

# Kernel sampling's cost to the sampled thread, jitscope's event against perf record
# (bench/perfcost.c; not part of `all`: run by hand, see docs/BENCHMARKS.md).
$(BUILD)/bench/perfcost: bench/perfcost.c server/perfring.c server/perfring.h
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(OPT) -fno-omit-frame-pointer -pthread -Iserver bench/perfcost.c server/perfring.c -o $@

# The code view's heat at its bound (bench/heatcost.c; run by bench/codeheat.mjs).
$(BUILD)/bench/heatcost: bench/heatcost.c server/profile_heat.c server/profile_heat.h
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(OPT) -Iserver bench/heatcost.c server/profile_heat.c -o $@

# Sanitizer builds: the agent is loaded into `dotnet`, which is not built with
# ASan, so the runtime is preloaded by the tests (LD_PRELOAD=$(ASAN_RT)).
$(BUILD)/asan/libjitscope_agent.so: $(ASAN_AGENT_OBJS)
	@mkdir -p $(@D)
	$(CC) $(AGENT_CFLAGS) $(ASAN) $^ -shared -pthread $(ASAN) -o $@

$(BUILD)/asan/jitscope: $(ASAN_SERVER_OBJS)
	@mkdir -p $(@D)
	$(CC) $(SERVER_CFLAGS) $(ASAN) $^ $(SERVER_LIBS) $(ASAN) -o $@

$(UNIT_SERVER_LIB): $(filter-out $(OBJ)/asan-server/server/main.o,$(ASAN_SERVER_OBJS))
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

asan: $(BUILD)/asan/libjitscope_agent.so $(BUILD)/asan/jitscope

# ---- dependencies: installed by the project itself, only what is missing ----

$(BUILD)/deps.stamp: scripts/deps.sh
	@mkdir -p $(@D)
	scripts/deps.sh build
	@touch $@

deps: $(BUILD)/deps.stamp

# Test-only extras (node packages for the browser and WebSocket tests, chromium).
$(BUILD)/deps-test.stamp: scripts/deps.sh tests/package.json | $(BUILD)/deps-fuzz.stamp
	scripts/deps.sh test
	@touch $@

deps-test: $(BUILD)/deps.stamp $(BUILD)/deps-test.stamp

# ---- running ----
run: all apps
	@echo "jitscope: starting the demo app under the agent (Ctrl-C stops)"
	$(SERVER_BIN) run --port $(PORT) $(if $(DATA),--data '$(DATA)') -- $(DOTNET) $(DEMO_DLL)

# ---- tests ----
UNIT_TESTS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/test_*.c))
# What the unit tests share (tests/unit/*.c but test_*.c: fixtures), as one
# archive every test links: a test takes only what it uses.
UNIT_SHARED_LIB := $(BUILD)/tests/libunit_shared.a

$(UNIT_SHARED_LIB): $(call objs,unit,$(filter-out tests/unit/test_%.c,$(wildcard tests/unit/*.c)))
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

$(BUILD)/tests/test_%: $(OBJ)/unit/tests/unit/test_%.o $(UNIT_AGENT_OBJS) $(UNIT_SHARED_LIB) $(UNIT_SERVER_LIB)
	@mkdir -p $(@D)
	$(CC) $(UNIT_CFLAGS) $(filter %.o,$^) $(filter %.a,$^) $(SERVER_LIBS) $(ASAN) -ldl -o $@
# ELF files for the symbol tests (test_cpusym.c), made from tests/helpers/elffix.c the ways
# distributions ship libraries: full; stripped with a debug file next to it (.gnu_debuglink,
# as dotnet-symbol leaves libcoreclr.so.dbg) and by build ID (a debuginfod cache); stripped
# without a build ID (the debug link's CRC proves its file); MiniDebugInfo (an xz .symtab in
# .gnu_debugdata, as Fedora's); and debug files of other builds next to copies (wrongcrc,
# wrongid), which must not be taken.
ELF_FIX := $(BUILD)/tests/elf/.made
$(ELF_FIX): tests/helpers/elffix.c
	@rm -rf $(@D) && mkdir -p $(@D)/cache
	cd $(@D) && $(CC) -O2 -g -fPIC -shared -Wl,--build-id ../../../$< -o full.so
	cd $(@D) && objcopy --only-keep-debug full.so libfix.so.dbg && \
	  objcopy --strip-all --add-gnu-debuglink=libfix.so.dbg full.so libfix.so
	cd $(@D) && id=$$(readelf -n full.so | sed -n 's/.*Build ID: *//p') && \
	  mkdir -p cache/$$id && cp libfix.so.dbg cache/$$id/debuginfo && \
	  mkdir -p byid && objcopy --strip-all full.so byid/libfix.so
	cd $(@D) && mkdir -p noid && $(CC) -O2 -g -fPIC -shared -Wl,--build-id=none ../../../$< -o noid/full.so && \
	  objcopy --only-keep-debug noid/full.so noid/libnoid.so.dbg && \
	  objcopy --strip-all --add-gnu-debuglink=noid/libnoid.so.dbg noid/full.so noid/libnoid.so
	cd $(@D) && mkdir -p wrongcrc wrongid && cp noid/libnoid.so wrongcrc/ && cp noid/full.so wrongcrc/libnoid.so.dbg && \
	  cp libfix.so wrongid/ && cp noid/libnoid.so.dbg wrongid/libfix.so.dbg
	cd $(@D) && objcopy --only-keep-debug full.so mini.debug && objcopy --strip-debug mini.debug && \
	  xz -f mini.debug && objcopy --strip-all --add-section .gnu_debugdata=mini.debug.xz full.so mini.so
	touch $@
$(BUILD)/tests/test_cpusym: $(ELF_FIX)

# The e2e tests' helper that runs the server where perf_event_open is refused (seccomp).
NOPERF_BIN := $(BUILD)/tests/noperf
$(NOPERF_BIN): tests/helpers/noperf.c | $(BUILD)/deps-test.stamp
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(OPT) $< -lseccomp -o $@
# ... and the one that runs an app where some system calls are refused (seccomp).
DENYSYS_BIN := $(BUILD)/tests/denysys
$(DENYSYS_BIN): tests/helpers/denysys.c | $(BUILD)/deps-test.stamp
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(OPT) $< -lseccomp -o $@
# The test_sidebyside_* binaries load the agent library as CoreCLR would (dlopen).
$(filter $(BUILD)/tests/test_sidebyside_%,$(UNIT_TESTS)): $(AGENT_SO)
# test_conn drives the agent's connection with records its ring holds.
$(BUILD)/tests/test_conn: $(call objs,unit,agent/conn.c agent/emit.c)
# test_exccount drives the agent's exception counting (its connection a stub).
$(BUILD)/tests/test_exccount: $(call objs,unit,agent/exccount.c)

# ---- fuzzing: one libFuzzer target per parser of outside input (docs/FUZZING.md) ----
# clang-14 and its libFuzzer runtime come from Debian (scripts/deps.sh fuzz).
CLANG        ?= clang-14
FUZZ_SECONDS ?= 60
# the targets: one per tests/fuzz/fuzz_<name>.c (tests/fuzz/run.sh list, the one list)
FUZZ_TARGETS := $(shell tests/fuzz/run.sh list)
FUZZ_BINS    := $(FUZZ_TARGETS:%=$(BUILD)/fuzz/%)
FUZZ_CFLAGS   = $(CSTD) $(WARN) -g -O1 -fsanitize=fuzzer,address,undefined \
                -fno-sanitize-recover=all -fno-omit-frame-pointer
# the decoder and what folds its records (session, views): the server's
# objects, as for route (a list by hand broke the link whenever a fold called a
# new file)
FUZZ_SRC_wire_decode := $(filter-out server/main.c,$(SERVER_SRC))
FUZZ_SRC_command     := proto/wire_decode.c proto/wire_encode.c proto/utf.c
FUZZ_SRC_ipc         := server/ipc_codec.c proto/utf.c
FUZZ_SRC_port        := server/ipc_port.c server/ipc_codec.c proto/utf.c
FUZZ_SRC_route       := $(filter-out server/main.c,$(SERVER_SRC)) tests/unit/fixtures.c
FUZZ_SRC_ws          := server/ws_msg.c
FUZZ_SRC_sig         := proto/sig.c
FUZZ_SRC_names       := agent/names.c
FUZZ_SRC_mdread      := proto/mdread.c
FUZZ_SRC_procsyms    := server/procsyms.c server/procmaps.c server/procfile.c server/elfsyms.c \
                        server/debugfile.c
FUZZ_SRC_perfrec     := server/perfring.c
FUZZ_SRC_procmaps    := server/procmaps.c server/procfile.c
FUZZ_SRC_elfsyms     := server/elfsyms.c
FUZZ_SRC_ehframe     := server/ehframe.c
FUZZ_LIBS_ehframe     = -lelf
FUZZ_SRC_ilbody      := proto/ilbody.c
FUZZ_SRC_report      := server/report_cond.c server/report_md.c server/textbuf.c
FUZZ_SRC_pdb         := server/pdb.c server/pefile.c
FUZZ_SRC_ilcalls     := server/ilcalls.c server/callnames.c server/symfile.c server/inroot.c server/pdb.c server/pefile.c proto/mdread.c proto/sig.c
FUZZ_LIBS_elfsyms     = -lelf -llzma -lz
FUZZ_LIBS_procsyms    = -lelf -llzma -lz
FUZZ_LIBS_pdb         = -lz
FUZZ_LIBS_ilcalls     = -lz
FUZZ_INC_sig         := -Iagent
FUZZ_INC_names       := -Iagent
FUZZ_INC_mdread      := -Iagent
FUZZ_INC_route        = -Iserver -Itests/unit -I$(GEN) $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
FUZZ_LIBS_route       = $(SERVER_LIBS)
FUZZ_LIBS_ws          = $(shell pkg-config --libs jansson 2>/dev/null)
FUZZ_LIBS_wire_decode = $(SERVER_LIBS)
FUZZ_LIBS_report      = $(shell pkg-config --libs jansson 2>/dev/null) -lm
$(foreach t,wire_decode command ipc port ws procsyms perfrec procmaps elfsyms ehframe report pdb ilcalls,$(eval FUZZ_INC_$(t) := -Iserver))

# The sources the targets share (every one of them the route target's, most of them the
# wire_decode target's too) are compiled once, with clang's instrumentation, into
# $(OBJ)/fuzz/<path>.o, and each target links the objects it names: not once per target that
# names them, and side by side (make -j) rather than in one clang run per target. A source's
# headers are found beside it; the -I directories are those a test's own sources use.
FUZZ_OBJ_CFLAGS = $(FUZZ_CFLAGS) -I$(GEN) -Iserver -Iagent -Itests/unit \
                  $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
$(OBJ)/fuzz/%.o: %.c | $(BUILD)/deps-fuzz.stamp
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_OBJ_CFLAGS) -MMD -MP -c $< -o $@
$(OBJ)/fuzz/server/pprof.o: $(GEN)/profile.pb-c.h
$(OBJ)/fuzz/server/openapi_doc.o: server/openapi.json

# A target's own file (tests/fuzz/fuzz_<name>.c) is compiled as it is linked, with its -I.
define FUZZ_RULE
$(BUILD)/fuzz/$(1): tests/fuzz/fuzz_$(1).c tests/fuzz/fuzz.h $$(call objs,fuzz,$$(FUZZ_SRC_$(1))) $(AGENT_HDR) $(SERVER_HDR) | $(BUILD)/deps-fuzz.stamp
	@mkdir -p $$(@D)
	$$(CLANG) $$(FUZZ_CFLAGS) $$(FUZZ_INC_$(1)) $$< $$(filter %.o,$$^) $$(FUZZ_LIBS_$(1)) -o $$@
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call FUZZ_RULE,$(t))))
$(BUILD)/fuzz/route: tests/unit/fixtures.h tests/unit/records.h

$(BUILD)/deps-fuzz.stamp: scripts/deps.sh | $(BUILD)/deps.stamp
	scripts/deps.sh fuzz
	@touch $@

fuzz-build: $(FUZZ_BINS)

# Each target for FUZZ_SECONDS from tests/fuzz/corpus/<name>; new inputs in
# build/fuzz/corpus, crashes in build/fuzz/crashes. FUZZ="ipc ws" runs only those.
fuzz: $(FUZZ_BINS)
	tests/fuzz/run.sh fuzz $(FUZZ_SECONDS) $(or $(FUZZ),$(FUZZ_TARGETS))

# Folds what `make fuzz` found into the committed corpus, minimized (-merge=1).
fuzz-merge: $(FUZZ_BINS)
	tests/fuzz/run.sh merge $(FUZZ)

unit: $(UNIT_TESTS)

test: all asan apps apps-runtimes $(UNIT_TESTS) $(FUZZ_BINS) $(NOPERF_BIN) $(DENYSYS_BIN) deps-test
	@tests/run.sh

# the layout check reads the built objects' symbols (calls between modules)
lint: deps-test all
	@scripts/lint.sh

bench: all apps
	bench/run.sh $(BENCH)

clean:
	rm -rf $(BUILD)
