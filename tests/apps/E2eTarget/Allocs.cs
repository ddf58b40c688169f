// Allocs.cs -- "allocs MB [wait]" mode: a known mix of allocations, for
// tests/e2e/allocations.test.mjs. A round allocates MB megabytes, about 70% of
// the bytes as byte[] (Allocs.AllocArrays) and 30% as AllocNode objects
// (Allocs.AllocNodes), interleaved in small steps, each method its own
// (NoInlining) so that each is a frame of its own in the allocating stacks.
// The truth is measured, not assumed: the bytes each method allocated
// (GC.GetAllocatedBytesForCurrentThread around each call), printed as
// "allocated arrays <bytes> nodes <bytes>", then the round's wall time as
// "round wall_ms <ms> cpu_ms <ms>" (the process's CPU time during it, every
// thread's; bench/allocations.mjs). With "wait", prints "waiting",
// then runs one round per line "go" on stdin until "exit"; else one round.
using System;
using System.Runtime.CompilerServices;

namespace JitscopeE2e
{
    public sealed class AllocNode
    {
        public long A, B, C, D;
    }

    public static class Allocs
    {
        private static readonly object[] Sink = new object[64];
        private static int _next;

        public static int Run(int megabytes, bool wait)
        {
            string? line;
            if (!wait)
            {
                Program.Out(Round(megabytes));
                return 0;
            }
            Program.Out("waiting");
            while ((line = Console.In.ReadLine()) != null && line.Trim() != "exit")
                if (line.Trim() == "go")
                    Program.Out(Round(megabytes));
            return 0;
        }

        private static string Round(int megabytes)
        {
            long arrays = 0, nodes = 0, goal = (long)megabytes << 20;
            var clock = System.Diagnostics.Stopwatch.StartNew();
            var cpu = System.Diagnostics.Process.GetCurrentProcess().TotalProcessorTime;
            while (arrays + nodes < goal)
            {
                long before = GC.GetAllocatedBytesForCurrentThread();
                AllocArrays(7);
                long middle = GC.GetAllocatedBytesForCurrentThread();
                AllocNodes(64);
                long after = GC.GetAllocatedBytesForCurrentThread();
                arrays += middle - before;
                nodes += after - middle;
            }
            return $"allocated arrays {arrays} nodes {nodes}\nround wall_ms {clock.Elapsed.TotalMilliseconds:F1} cpu_ms {(System.Diagnostics.Process.GetCurrentProcess().TotalProcessorTime - cpu).TotalMilliseconds:F1}";
        }

        /// <summary>count byte[1000] (1,024 bytes each with their header).</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void AllocArrays(int count)
        {
            for (int i = 0; i < count; i++)
                Sink[_next++ & 63] = new byte[1000];
        }

        /// <summary>count AllocNode (48 bytes each).</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void AllocNodes(int count)
        {
            for (int i = 0; i < count; i++)
                Sink[_next++ & 63] = new AllocNode { A = i };
        }
    }
}
