// Tree.cs -- "parent" mode: the launched process of a small process tree, for
// tests/e2e/trees.test.mjs. It starts one child .NET process (this app in
// "sleep" mode, inheriting the environment and so the agent's startup
// variables), prints "child PID", and exits when its stdin says "exit" or
// closes, leaving the child running: the run's launched process ends while a
// child still lives. "parentwait" waits for its child's end and exits at once.
using System;
using System.Diagnostics;
using System.Threading;

namespace JitscopeE2e
{
    public static class Tree
    {
        public static int Parent()
        {
            var self = Environment.GetCommandLineArgs()[0]; // this app's dll
            var start = new ProcessStartInfo("dotnet") { UseShellExecute = false };
            start.ArgumentList.Add(self);
            start.ArgumentList.Add("sleep");
            start.ArgumentList.Add("300");
            using var child = Process.Start(start);
            if (child == null)
            {
                Console.Error.WriteLine("E2eTarget: cannot start the child");
                return 3;
            }
            Program.Out("child " + child.Id);
            string? line;
            while ((line = Console.In.ReadLine()) != null && line.Trim() != "exit") { }
            Program.Out("parent exits");
            return 0;
        }

        /// <summary>"parentwait": starts a child that sleeps a second, waits for
        /// it, and exits at once, as `dotnet test` does after vstest.console: the
        /// child's end comes milliseconds before the launched process's.</summary>
        public static int ParentWait()
        {
            var start = new ProcessStartInfo("dotnet") { UseShellExecute = false };
            start.ArgumentList.Add(Environment.GetCommandLineArgs()[0]);
            start.ArgumentList.Add("sleep");
            start.ArgumentList.Add("1");
            using var child = Process.Start(start);
            if (child == null)
                return 3;
            child.WaitForExit();
            Program.Out("child exited " + child.ExitCode);
            return 0;
        }

        /// <summary>The child: says it is up, then sleeps (no stdin: the parent keeps that).</summary>
        public static int Sleep(int seconds)
        {
            Program.Out("child up " + Environment.ProcessId);
            Thread.Sleep(TimeSpan.FromSeconds(seconds));
            return 0;
        }
    }
}
