# tests/apps/apps.mk — builds jitscope's C# test target apps.
#
# Included by the top-level Makefile (`include tests/apps/apps.mk`), or used on
# its own from the repo root:  make -f tests/apps/apps.mk apps
#
# Targets:
#   apps        build Demo (+DemoPlugin), E2eTarget (+E2ePlugin), StackTarget and WebTarget, Release,
#               offline (tests/apps/NuGet.config has no package sources)
#   apps-runtimes  E2eTarget (+E2ePlugin) and StackTarget on each runtime of APPS_RUNTIMES
#               (.NET 8 and 9), and OldTarget on .NET Core 3.1, published self-contained
#               (below); the only target that restores packages from the network, once
#               per machine
#   apps-clean  remove $(APPS_OUT)
#
# Variables (set APPS_OUT before the include to move the output):
#   APPS_OUT          output root, relative to the repo root (default build/apps)
#   DEMO_DLL          $(APPS_OUT)/Demo/Demo.dll           run: $(DOTNET) $(DEMO_DLL)
#   DEMO_PLUGIN_DLL   $(APPS_OUT)/Demo/DemoPlugin.dll     (next to Demo.dll)
#   E2E_DLL           $(APPS_OUT)/E2eTarget/E2eTarget.dll run: $(DOTNET) $(E2E_DLL)
#   E2E_PLUGIN_DLL    $(APPS_OUT)/E2eTarget/E2ePlugin.dll (next to E2eTarget.dll)
#   STACK_DLL         $(APPS_OUT)/StackTarget/StackTarget.dll (stacks, profile, timeline)
#   WEB_DLL           $(APPS_OUT)/WebTarget/WebTarget.dll (ASP.NET Core under load: CPU profiles)
#   APPS_DLLS         all six of the above
#   APPS_RUNTIMES     target frameworks of apps-runtimes (default: net8.0 net9.0)
#   APPS_RUNTIME_EXES $(APPS_OUT)/runtimes/<tfm>/E2eTarget and .../StackTarget for each,
#                     and $(APPS_OUT)/runtimes/netcoreapp3.1/OldTarget
#   DOTNET            the dotnet host (default: dotnet)
#
# Nothing is written into tests/apps/: tests/apps/Directory.Build.props puts
# bin and obj under $(APPS_OUT) (obj/ in $(APPS_OUT)/obj/<Project>/).
# The dlls are make targets with the .cs/.csproj/props files as prerequisites,
# so `make apps` does nothing when no source changed.
# Each of `apps` and `apps-runtimes` is one dotnet run of tests/apps/Apps.proj, which
# builds (publishes) the apps side by side in one MSBuild with one restore: a dotnet
# run per app paid the SDK's start-up, evaluation and restore once per app.

# Where this fragment lives (captured before any other include changes MAKEFILE_LIST).
APPS_SRC := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
# Standalone use (make -f tests/apps/apps.mk): `apps` is the default goal; when
# included, leave the including Makefile's default goal alone.
ifeq ($(words $(MAKEFILE_LIST)),1)
APPS_STANDALONE := 1
endif
APPS_SAVED_DEFAULT_GOAL := $(.DEFAULT_GOAL)

APPS_OUT ?= build/apps
DOTNET ?= dotnet

DEMO_DLL        := $(APPS_OUT)/Demo/Demo.dll
DEMO_PLUGIN_DLL := $(APPS_OUT)/Demo/DemoPlugin.dll
E2E_DLL         := $(APPS_OUT)/E2eTarget/E2eTarget.dll
E2E_PLUGIN_DLL  := $(APPS_OUT)/E2eTarget/E2ePlugin.dll
STACK_DLL       := $(APPS_OUT)/StackTarget/StackTarget.dll
WEB_DLL         := $(APPS_OUT)/WebTarget/WebTarget.dll
APPS_DLLS       := $(DEMO_DLL) $(DEMO_PLUGIN_DLL) $(E2E_DLL) $(E2E_PLUGIN_DLL) $(STACK_DLL) $(WEB_DLL)

# Quiet, offline, no telemetry, no lingering build-server processes
# (MSBuild node reuse and the shared Roslyn compiler server are both off, so
# nothing is left running that could hold a CI pipe open).
APPS_DOTNET_ENV := DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 \
	DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1 DOTNET_CLI_WORKLOAD_UPDATE_NOTIFY_DISABLE=1 \
	DOTNET_GENERATE_ASPNET_CERTIFICATE=false MSBUILDDISABLENODEREUSE=1
APPS_BUILD_FLAGS := -c Release -nologo -v:minimal \
	-nodeReuse:false --disable-build-servers -p:UseSharedCompilation=false \
	-p:JitscopeAppsOut=$(abspath $(APPS_OUT))/

APPS_COMMON_DEPS := $(APPS_SRC)/Directory.Build.props $(APPS_SRC)/NuGet.config $(APPS_SRC)/Apps.proj
APPS_DEMO_DEPS := $(APPS_COMMON_DEPS) \
	$(wildcard $(APPS_SRC)/Demo/*.cs) $(APPS_SRC)/Demo/Demo.csproj \
	$(wildcard $(APPS_SRC)/DemoPlugin/*.cs) $(APPS_SRC)/DemoPlugin/DemoPlugin.csproj
APPS_E2E_DEPS := $(APPS_COMMON_DEPS) \
	$(wildcard $(APPS_SRC)/E2eTarget/*.cs) $(APPS_SRC)/E2eTarget/E2eTarget.csproj \
	$(wildcard $(APPS_SRC)/E2ePlugin/*.cs) $(APPS_SRC)/E2ePlugin/E2ePlugin.csproj
APPS_STACK_DEPS := $(APPS_COMMON_DEPS) \
	$(wildcard $(APPS_SRC)/StackTarget/*.cs) $(APPS_SRC)/StackTarget/StackTarget.csproj
APPS_WEB_DEPS := $(APPS_COMMON_DEPS) \
	$(wildcard $(APPS_SRC)/WebTarget/*.cs) $(APPS_SRC)/WebTarget/WebTarget.csproj

.PHONY: apps apps-runtimes apps-clean

apps: $(APPS_DLLS)

# One dotnet build of Apps.proj builds the four apps; each app's build builds its plugin too
# (ProjectReference without a compile-time reference) and copies the plugin dll next to the
# app's dll. ASP.NET Core (WebTarget) from the SDK's own shared framework and targeting pack:
# offline too. touch: MSBuild may leave an up-to-date dll untouched; make needs them newer
# than their sources (the plugins last, so none is older than the app dll beside it).
$(APPS_DLLS) &: $(APPS_DEMO_DEPS) $(APPS_E2E_DEPS) $(APPS_STACK_DEPS) $(APPS_WEB_DEPS)
	$(APPS_DOTNET_ENV) $(DOTNET) build $(APPS_SRC)/Apps.proj $(APPS_BUILD_FLAGS)
	touch $(DEMO_DLL) $(E2E_DLL) $(STACK_DLL) $(WEB_DLL) $(DEMO_PLUGIN_DLL) $(E2E_PLUGIN_DLL)

# ---- the same apps on the older runtimes users have (.NET 8 LTS, .NET 9) ----
# A self-contained publish (-r linux-x64) of E2eTarget and StackTarget for each target
# framework into one directory per runtime, $(APPS_OUT)/runtimes/<tfm>/ (the apphosts
# E2eTarget and StackTarget, E2ePlugin.dll, and one copy of that runtime), so they run
# without a system install of it; and a runtime jitscope does not support, for the refusal
# tests: OldTarget on .NET Core 3.1 (its csproj names the runtime pack's version), in
# $(APPS_OUT)/runtimes/netcoreapp3.1/. One dotnet run of Apps.proj (PublishRuntimes)
# publishes them all, the runtimes side by side, a runtime's apps one after the other
# (they write the same runtime files). JitscopeTfm (read by Directory.Build.props)
# reaches E2ePlugin too; intermediate files go to $(APPS_OUT)/runtimes/.work/<tfm>/. The
# SDK picks the runtime's version (its newest patch it knows); restore fetches that
# runtime's runtime, apphost and targeting packs into the user's global package folder.
# It reads the NuGet configuration from $(APPS_OUT)/runtimes upwards and the user's, not
# tests/apps/NuGet.config, which has no sources so that `apps` stays offline;
# DisableTransitiveFrameworkReferenceDownloads keeps it to those three packs.
APPS_RUNTIMES ?= net8.0 net9.0
APPS_RT_OUT := $(APPS_OUT)/runtimes
APPS_OLD_EXE := $(APPS_RT_OUT)/netcoreapp3.1/OldTarget
APPS_RUNTIME_EXES := $(foreach t,$(APPS_RUNTIMES),$(APPS_RT_OUT)/$(t)/E2eTarget $(APPS_RT_OUT)/$(t)/StackTarget) \
	$(APPS_OLD_EXE)
APPS_EMPTY :=
APPS_SPACE := $(APPS_EMPTY) $(APPS_EMPTY)
APPS_PUBLISH_FLAGS := -t:PublishRuntimes -c Release -nologo -v:minimal -nodeReuse:false \
	--disable-build-servers -p:UseSharedCompilation=false \
	'-p:JitscopeRuntimes="$(subst $(APPS_SPACE),;,$(strip $(APPS_RUNTIMES)))"' \
	-p:JitscopeRuntimesOut=$(abspath $(APPS_RT_OUT))/ \
	-p:RestoreRootConfigDirectory=$(abspath $(APPS_RT_OUT))/ \
	-p:DisableTransitiveFrameworkReferenceDownloads=true

$(APPS_RUNTIME_EXES) &: $(APPS_E2E_DEPS) $(APPS_STACK_DEPS) \
		$(wildcard $(APPS_SRC)/OldTarget/*.cs) $(APPS_SRC)/OldTarget/OldTarget.csproj
	@mkdir -p $(APPS_RT_OUT)
	$(APPS_DOTNET_ENV) $(DOTNET) build $(APPS_SRC)/Apps.proj $(APPS_PUBLISH_FLAGS)
	touch $(APPS_RUNTIME_EXES) $(foreach t,$(APPS_RUNTIMES),$(APPS_RT_OUT)/$(t)/E2ePlugin.dll)

apps-runtimes: $(APPS_RUNTIME_EXES)

apps-clean:
	rm -rf $(APPS_OUT)

ifdef APPS_STANDALONE
.DEFAULT_GOAL := apps
else
.DEFAULT_GOAL := $(APPS_SAVED_DEFAULT_GOAL)
endif
