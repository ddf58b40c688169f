// Storm.cs — E2eTarget's "jitstorm" mode: make the JIT compile many distinct
// real methods quickly, for jitscope's benchmarks (~1,000 and ~20,000 methods).
//
// Every instantiation of a generic method over value types is a separate
// method body that the JIT compiles on its own (value-type instantiations are
// never shared). With 30 structs S00..S29 this gives
//   Combo3<A,B,C>  30^3 = 27000 instantiations
//   Combo2<A,B>    30^2 =   900
//   Combo1<A>      30   =    30
// i.e. Capacity = 27930 distinct JIT-compiled methods, each with real metadata
// (JitscopeE2e.Storm.Combo3<JitscopeE2e.S00,JitscopeE2e.S07,JitscopeE2e.S29> ...).
// They are instantiated with MakeGenericMethod and called once each via
// reflection, in a fixed order, and summed into a deterministic checksum.

using System;
using System.Reflection;
using System.Runtime.CompilerServices;

namespace JitscopeE2e
{
    /// <summary>Gives each storm struct a distinct constant, read in the generic bodies.</summary>
    public interface IWeight
    {
        int Weight { get; }
    }

    public struct S00 : IWeight { public int Weight => 1; }
    public struct S01 : IWeight { public int Weight => 2; }
    public struct S02 : IWeight { public int Weight => 3; }
    public struct S03 : IWeight { public int Weight => 4; }
    public struct S04 : IWeight { public int Weight => 5; }
    public struct S05 : IWeight { public int Weight => 6; }
    public struct S06 : IWeight { public int Weight => 7; }
    public struct S07 : IWeight { public int Weight => 8; }
    public struct S08 : IWeight { public int Weight => 9; }
    public struct S09 : IWeight { public int Weight => 10; }
    public struct S10 : IWeight { public int Weight => 11; }
    public struct S11 : IWeight { public int Weight => 12; }
    public struct S12 : IWeight { public int Weight => 13; }
    public struct S13 : IWeight { public int Weight => 14; }
    public struct S14 : IWeight { public int Weight => 15; }
    public struct S15 : IWeight { public int Weight => 16; }
    public struct S16 : IWeight { public int Weight => 17; }
    public struct S17 : IWeight { public int Weight => 18; }
    public struct S18 : IWeight { public int Weight => 19; }
    public struct S19 : IWeight { public int Weight => 20; }
    public struct S20 : IWeight { public int Weight => 21; }
    public struct S21 : IWeight { public int Weight => 22; }
    public struct S22 : IWeight { public int Weight => 23; }
    public struct S23 : IWeight { public int Weight => 24; }
    public struct S24 : IWeight { public int Weight => 25; }
    public struct S25 : IWeight { public int Weight => 26; }
    public struct S26 : IWeight { public int Weight => 27; }
    public struct S27 : IWeight { public int Weight => 28; }
    public struct S28 : IWeight { public int Weight => 29; }
    public struct S29 : IWeight { public int Weight => 30; }

    public static class Storm
    {
        public const int Capacity = 30 * 30 * 30 + 30 * 30 + 30;

        static readonly Type[] Structs =
        {
            typeof(S00), typeof(S01), typeof(S02), typeof(S03), typeof(S04), typeof(S05), typeof(S06), typeof(S07), typeof(S08), typeof(S09),
            typeof(S10), typeof(S11), typeof(S12), typeof(S13), typeof(S14), typeof(S15), typeof(S16), typeof(S17), typeof(S18), typeof(S19),
            typeof(S20), typeof(S21), typeof(S22), typeof(S23), typeof(S24), typeof(S25), typeof(S26), typeof(S27), typeof(S28), typeof(S29),
        };

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Combo3<A, B, C>(long seed)
            where A : struct, IWeight where B : struct, IWeight where C : struct, IWeight
        {
            return seed * 31 + default(A).Weight * 10000L + default(B).Weight * 100L + default(C).Weight;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Combo2<A, B>(long seed)
            where A : struct, IWeight where B : struct, IWeight
        {
            return seed * 37 + default(A).Weight * 100L + default(B).Weight;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Combo1<A>(long seed)
            where A : struct, IWeight
        {
            return seed * 41 + default(A).Weight;
        }

        /// <summary>
        /// Instantiates and calls the first min(n, Capacity) combinations (Combo3
        /// first, then Combo2, then Combo1), each exactly once. Returns how many.
        /// </summary>
        public static int Run(int n, out ulong sum) => Run(0, n, out sum);

        /// <summary>
        /// The combinations start .. start+n-1 (clamped to Capacity), each called
        /// once: a later call with the next start JITs only methods never compiled
        /// before. Returns how many.
        /// </summary>
        public static int Run(int start, int n, out ulong sum)
        {
            int end = (int)Math.Min((long)Math.Max(start, 0) + n, Capacity);
            const BindingFlags flags = BindingFlags.Public | BindingFlags.Static;
            MethodInfo c3 = typeof(Storm).GetMethod(nameof(Combo3), flags)!;
            MethodInfo c2 = typeof(Storm).GetMethod(nameof(Combo2), flags)!;
            MethodInfo c1 = typeof(Storm).GetMethod(nameof(Combo1), flags)!;
            object[] args = { 7L };
            sum = Checksum.Seed;
            for (int k = Math.Max(start, 0); k < end; k++)
            {
                MethodInfo m;
                if (k < 27000)
                    m = c3.MakeGenericMethod(Structs[k / 900], Structs[k / 30 % 30], Structs[k % 30]);
                else if (k < 27900)
                    m = c2.MakeGenericMethod(Structs[(k - 27000) / 30], Structs[(k - 27000) % 30]);
                else
                    m = c1.MakeGenericMethod(Structs[k - 27900]);
                sum = Checksum.Add(sum, (long)m.Invoke(null, args)!);
            }
            return Math.Max(end - Math.Max(start, 0), 0);
        }
    }
}
