// GcLoop.cs -- "gcs N [LARGE]": N garbage collections the runtime decides on
// its own (short-lived small arrays until gen 0 has been collected N times;
// with LARGE, N more from large-object allocations), then one GC.Collect().
// Prints "gcs <gen0 collections> <ms> <cpu ms>" (the loop's own wall and
// process CPU time, for bench/gcreason.mjs) and "gcs done". For the GC reasons of
// tests/e2e/gcreason.test.mjs.
using System;
using System.Diagnostics;

namespace JitscopeE2e
{
    public static class GcLoop
    {
        static object? keep;

        public static int Run(int n, bool large)
        {
            int start = GC.CollectionCount(0);
            var cpu = Process.GetCurrentProcess().TotalProcessorTime;
            var watch = Stopwatch.StartNew();
            while (GC.CollectionCount(0) - start < n)
                keep = new byte[1024];
            if (large)
            {
                int gen2 = GC.CollectionCount(2);
                while (GC.CollectionCount(2) - gen2 < n)
                    keep = new byte[1 << 20];
            }
            watch.Stop();
            cpu = Process.GetCurrentProcess().TotalProcessorTime - cpu;
            Console.WriteLine($"gcs {GC.CollectionCount(0) - start} {watch.Elapsed.TotalMilliseconds:F1} {cpu.TotalMilliseconds:F1}");
            GC.Collect();
            Console.WriteLine("gcs done");
            return 0;
        }
    }
}
