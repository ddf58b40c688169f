// Throws.cs -- "throws" mode: exceptions of known types, from known methods,
// caught at known places, for tests/e2e/exceptions.test.mjs; "unhandled": one
// exception no code catches, on a background thread (the runtime then ends
// the process); "throwstorm N": N exceptions thrown and caught in a loop, for
// bench/exceptions.mjs.
//
// throws [wait] [child]: with "wait", prints "waiting", then runs one round of
// throws per line "go" on stdin (an attach comes first) until "exit". A round, each method its own
// (NoInlining) so that each throw site is one method and IL offset:
//   Throws.ThrowInvalid(int)   InvalidOperationException "invalid <i>"  x InvalidCount,
//                              caught in Throws.CatchInvalid
//   Throws.ThrowArgument()     ArgumentException "bad argument"          x ArgumentCount,
//                              caught in Throws.CatchArgument
//   Throws.ThrowFormat()       FormatException "format"                   x FormatCount,
//                              caught in Throws.Middle, which rethrows it (`throw;`, a
//                              throw site of its own), caught in Throws.Outer
// prints "thrown <total caught>". Without "wait", one round; with "child", then runs this app as "unhandled" and prints
// "child exited <code>" (its exit is the runtime's for an unhandled exception); then
// reads stdin until "exit" or its end.
using System;
using System.Diagnostics;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Threading;

namespace JitscopeE2e
{
    public static class Throws
    {
        public const int InvalidCount = 100, ArgumentCount = 37, FormatCount = 5;

        public static int Run(bool wait, bool child)
        {
            string? line;
            if (wait)
            {
                Program.Out("waiting");
                while ((line = Console.In.ReadLine()) != null && line.Trim() != "exit")
                    if (line.Trim() == "go")
                        Program.Out("thrown " + Round());
                return 0;
            }
            Program.Out("thrown " + Round());
            if (child)
                Program.Out("child exited " + RunChild());
            while ((line = Console.In.ReadLine()) != null && line.Trim() != "exit") { }
            return 0;
        }

        /// <summary>One round of the throws above; how many were caught.</summary>
        static int Round() => CatchInvalid() + CatchArgument() + Outer();

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void ThrowInvalid(int i) => throw new InvalidOperationException("invalid " + i);

        [MethodImpl(MethodImplOptions.NoInlining)]
        static int CatchInvalid()
        {
            int n = 0;
            for (int i = 0; i < InvalidCount; i++)
            {
                try { ThrowInvalid(i); }
                catch (InvalidOperationException) { n++; }
            }
            return n;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void ThrowArgument() => throw new ArgumentException("bad argument");

        [MethodImpl(MethodImplOptions.NoInlining)]
        static int CatchArgument()
        {
            int n = 0;
            for (int i = 0; i < ArgumentCount; i++)
            {
                try { ThrowArgument(); }
                catch (ArgumentException) { n++; }
            }
            return n;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void ThrowFormat() => throw new FormatException("format");

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Middle()
        {
            try { ThrowFormat(); }
            catch (FormatException) { throw; }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static int Outer()
        {
            int n = 0;
            for (int i = 0; i < FormatCount; i++)
            {
                try { Middle(); }
                catch (FormatException) { n++; }
            }
            return n;
        }

        /// <summary>This app again, as "unhandled": through the same host it runs on.</summary>
        static int RunChild()
        {
            string host = Environment.ProcessPath ?? "dotnet";
            var start = new ProcessStartInfo(host) { UseShellExecute = false, RedirectStandardError = true };
            if (System.IO.Path.GetFileNameWithoutExtension(host) == "dotnet")
                start.ArgumentList.Add(Environment.GetCommandLineArgs()[0]);
            start.ArgumentList.Add("unhandled");
            using var child = Process.Start(start);
            if (child == null)
                return -1;
            child.StandardError.ReadToEnd(); // the runtime's report of the exception
            child.WaitForExit();
            return child.ExitCode;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void ThrowInBackground() => throw new NotSupportedException("background unhandled");

        /// <summary>"unhandled": a background thread throws and nothing catches it.</summary>
        public static int Unhandled()
        {
            var t = new Thread(ThrowInBackground) { IsBackground = true, Name = "e2e-unhandled" };
            t.Start();
            t.Join();
            return 0; // not reached: the runtime ends the process
        }

        /// <summary>"throwstorm N": N exceptions thrown and caught (after 1,000 to warm up);
        /// prints "throwstorm N WALL_MS CPU_MS SENDER_MS", the loop's wall time and the
        /// process's CPU time during it (every thread's: the agent's sender too), and the CPU
        /// time of the agent's sender thread ("jitscope-agent") from the loop's start to half
        /// a second after its end (its drain of what the loop queued; 0 without an agent; in
        /// clock ticks, 10 ms).</summary>
        public static int Storm(int n)
        {
            int caught = 0;
            for (int i = 0; i < 1000; i++)
            {
                try { ThrowArgument(); }
                catch (ArgumentException) { caught++; }
            }
            var self = Process.GetCurrentProcess();
            double sender0 = SenderCpuMs();
            var cpu0 = self.TotalProcessorTime;
            var sw = Stopwatch.StartNew();
            caught = 0;
            for (int i = 0; i < n; i++)
            {
                try { ThrowArgument(); }
                catch (ArgumentException) { caught++; }
            }
            sw.Stop();
            self.Refresh();
            var cpu = (self.TotalProcessorTime - cpu0).TotalMilliseconds;
            Thread.Sleep(500);
            double sender = SenderCpuMs() - sender0;
            Program.Out(FormattableString.Invariant($"throwstorm {caught} {sw.Elapsed.TotalMilliseconds:F1} {cpu:F1} {sender:F1}"));
            return 0;
        }

        /// <summary>The CPU time (user + system, ms) of this process's threads named
        /// "jitscope-agent", from /proc/self/task/*/stat; 0 when there is none.</summary>
        static double SenderCpuMs()
        {
            double ms = 0;
            foreach (var task in System.IO.Directory.GetDirectories("/proc/self/task"))
            {
                try
                {
                    if (System.IO.File.ReadAllText(task + "/comm").Trim() != "jitscope-agent")
                        continue;
                    var stat = System.IO.File.ReadAllText(task + "/stat");
                    var f = stat[(stat.LastIndexOf(')') + 2)..].Split(' ');
                    ms += (double.Parse(f[11], CultureInfo.InvariantCulture) +
                           double.Parse(f[12], CultureInfo.InvariantCulture)) * 10.0;
                }
                catch (System.IO.IOException) { } // the thread ended meanwhile
            }
            return ms;
        }
    }
}
