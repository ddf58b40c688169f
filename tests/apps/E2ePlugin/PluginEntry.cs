// E2ePlugin — a class library that E2eTarget loads at run time with
// Assembly.LoadFrom (it is NOT a compile-time reference of E2eTarget).
//
// jitscope's end-to-end tests check that the second assembly's load is seen
// and that JitscopePlugin.PluginEntry.UniquePluginMethod() gets JIT-compiled.
// The result is deterministic so E2eTarget's stdout is identical every run.

using System.Runtime.CompilerServices;

namespace JitscopePlugin
{
    public static class PluginEntry
    {
        /// <summary>Called by E2eTarget through reflection. Deterministic result.</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static string UniquePluginMethod()
        {
            // FNV-1a over a fixed text: a small, real computation.
            const string text = "jitscope-e2e-plugin";
            uint h = 2166136261;
            foreach (char c in text)
            {
                h ^= c;
                h *= 16777619;
            }
            return "plugin-ok " + h.ToString("x8");
        }
    }
}
