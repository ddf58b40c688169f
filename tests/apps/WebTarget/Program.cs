// WebTarget — a small ASP.NET Core service (Kestrel, minimal API) for jitscope's
// CPU-profile tests and benchmarks: a load generator calls it while jitscope
// samples it. Its work is in methods with known names:
//   GET /work?n=N   WebTarget.Work.Handle -> Work.Compute (N rounds of integer
//                   hashing, NoInlining) and a JSON answer {"n":N,"hash":"..."}
//   GET /items?n=N  N records serialized by System.Text.Json (framework code)
// Usage: WebTarget [PORT]   (0, the default, picks a free port). Prints
// "READY pid=<pid> url=<base url>" once Kestrel listens; stops on stdin "exit"
// or EOF, printing "served <requests>" and "bye".

using System;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Threading;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace WebTarget
{
    public static class Work
    {
        static long _served;
        public static long Served => Interlocked.Read(ref _served);

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static ulong Compute(int rounds)
        {
            ulong h = 14695981039346656037UL;
            for (int r = 0; r < rounds; r++)
                for (uint i = 0; i < 1000; i++)
                    h = (h ^ i) * 1099511628211UL;
            return h;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static IResult Handle(int n)
        {
            Interlocked.Increment(ref _served);
            return Results.Json(new { n, hash = Compute(n).ToString("x16") });
        }

        public sealed record Item(int Id, string Name, double Price, string[] Tags);

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static IResult Items(int n)
        {
            Interlocked.Increment(ref _served);
            var items = new List<Item>(n);
            for (int i = 0; i < n; i++)
                items.Add(new Item(i, "item-" + i, i * 1.25, new[] { "a" + (i % 7), "b" + (i % 3) }));
            return Results.Json(items);
        }
    }

    public static class Program
    {
        public static int Main(string[] args)
        {
            _ = Console.In; // opened before READY (as StackTarget does)
            int port = args.Length > 0 && int.TryParse(args[0], out int p) ? p : 0;
            var builder = WebApplication.CreateSlimBuilder(args);
            builder.Logging.ClearProviders();
            builder.WebHost.UseUrls($"http://127.0.0.1:{port}");
            var app = builder.Build();
            app.MapGet("/work", (int? n) => Work.Handle(Math.Clamp(n ?? 200, 1, 100000)));
            app.MapGet("/items", (int? n) => Work.Items(Math.Clamp(n ?? 100, 1, 10000)));
            app.Start();
            string url = app.Services.GetRequiredService<IServer>().Features
                .Get<IServerAddressesFeature>()!.Addresses.First();
            Console.Out.WriteLine($"READY pid={Environment.ProcessId} url={url}");
            Console.Out.Flush();
            string? line;
            while ((line = Console.In.ReadLine()) != null && line.Trim() != "exit") { }
            app.StopAsync().GetAwaiter().GetResult();
            Console.Out.WriteLine("served " + Work.Served);
            Console.Out.WriteLine("bye");
            return 0;
        }
    }
}
