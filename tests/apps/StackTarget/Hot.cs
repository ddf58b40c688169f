// Hot.cs — the "hotline" mode: two threads whose CPU time goes to one known
// source line each, the oracle of the code view's heat (tests/e2e/codeheat.test.mjs):
//   "hotwork"  Hot.WorkCaller calls Hot.Work again and again: Work tiers up to Tier1,
//              and nearly every sample of it has WorkCaller's call to it under it
//   "hotosr"   enters Hot.OsrLoop once; its loop runs until "exit": on-stack replacement
// Each hot line is a chain of floating-point divisions (no calls), so nearly
// all of its method's time is spent there; its line ends in a "HOT LINE" comment.
// Before READY the app prints, from its own portable PDB (System.Reflection.Metadata),
// each method's sequence points: "SEQ <method> <IL offset> <start line>" (hidden
// points: line 16707566), so the test knows the hot line's IL offsets without
// jitscope's help.

using System;
using System.IO;
using System.Reflection;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Runtime.CompilerServices;
using System.Threading;

namespace StackTarget
{
    public static class Hot
    {
        static volatile bool stop;
        static double sink;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static double Work(int n, double a, double b)
        {
            double y = a;
            for (int i = 0; i < n; i++)
            {
                y = (y + a) / (y * b + 1.0) + a / (y + b) / (b + y * y) + b / (a + y * a); // HOT LINE Work
            }
            return y;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void WorkCaller(double a, double b)
        {
            double s = 0;
            while (!stop) s += Work(20000, a, b);
            sink = s;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static double OsrLoop(double a, double b)
        {
            double y = a;
            while (!stop)
            {
                for (int i = 0; i < 4096; i++)
                {
                    y = (y + a) / (y * b + 1.0) + a / (y + b) / (b + y * y) + b / (a + y * a); // HOT LINE OsrLoop
                }
            }
            return y;
        }

        static void PrintSequencePoints()
        {
            string dll = typeof(Hot).Assembly.Location;
            using var pdb = File.OpenRead(Path.ChangeExtension(dll, ".pdb"));
            using var provider = MetadataReaderProvider.FromPortablePdbStream(pdb);
            MetadataReader reader = provider.GetMetadataReader();
            foreach (string name in new[] { nameof(Work), nameof(OsrLoop) })
            {
                MethodInfo m = typeof(Hot).GetMethod(name)!;
                var handle = (MethodDefinitionHandle)MetadataTokens.Handle(m.MetadataToken);
                foreach (SequencePoint sp in reader.GetMethodDebugInformation(handle).GetSequencePoints())
                    Program.Out("SEQ " + name + " " + sp.Offset + " " + sp.StartLine);
            }
        }

        public static int Run()
        {
            PrintSequencePoints();
            double a = 1.5 + Environment.ProcessId % 2 * 0.0, b = 0.5; // not constants to the JIT
            var work = new Thread(() => WorkCaller(a, b)) { Name = "hotwork" };
            var osr = new Thread(() => sink += OsrLoop(a, b)) { Name = "hotosr" };
            work.Start();
            osr.Start();
            Program.Out("READY pid=" + Environment.ProcessId);
            string? line;
            while ((line = Console.In.ReadLine()) != null && line.Trim() != "exit") { }
            stop = true;
            work.Join();
            osr.Join();
            Program.Out(double.IsFinite(sink) ? "bye" : "bye (not finite)");
            return 0;
        }
    }
}
