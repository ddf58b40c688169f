// Requests.cs -- "requests N" mode: a service-like load at a realistic
// allocation rate, for bench/allocations.mjs. Each "request" builds a small
// order (20 lines with formatted strings), serializes it with System.Text.Json,
// parses the text back and checks a sum: what a JSON endpoint allocates, with
// the CPU work around it, on one thread. After 500 warm-up requests (the JIT),
// N requests are timed; prints "allocated bytes <bytes> requests <N>" (the
// thread's allocations during them, GC.GetAllocatedBytesForCurrentThread) and
// "round wall_ms <ms> cpu_ms <ms>" (the process's CPU time, every thread's).
using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Text.Json;

namespace JitscopeE2e
{
    public sealed class OrderLine
    {
        public string Sku { get; set; } = "";
        public string Description { get; set; } = "";
        public int Quantity { get; set; }
        public decimal Price { get; set; }
    }

    public sealed class Order
    {
        public long Id { get; set; }
        public string Customer { get; set; } = "";
        public DateTime Placed { get; set; }
        public List<OrderLine> Lines { get; set; } = new();
    }

    public static class Requests
    {
        public static int Run(int count)
        {
            long check = 0;
            for (int i = 0; i < 500; i++)
                check += Handle(i);
            var clock = System.Diagnostics.Stopwatch.StartNew();
            var cpu = System.Diagnostics.Process.GetCurrentProcess().TotalProcessorTime;
            long before = GC.GetAllocatedBytesForCurrentThread();
            for (int i = 0; i < count; i++)
                check += Handle(i);
            long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
            var wall = clock.Elapsed.TotalMilliseconds;
            var used = (System.Diagnostics.Process.GetCurrentProcess().TotalProcessorTime - cpu).TotalMilliseconds;
            Program.Out($"allocated bytes {allocated} requests {count} check {check}");
            Program.Out($"round wall_ms {wall:F1} cpu_ms {used:F1}");
            return 0;
        }

        /// <summary>One request: build, serialize, parse back, add up the quantities.</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Handle(int n)
        {
            var order = new Order { Id = n, Customer = $"customer-{n % 997}", Placed = new DateTime(2026, 1, 1).AddMinutes(n) };
            for (int k = 0; k < 20; k++)
                order.Lines.Add(new OrderLine
                {
                    Sku = $"SKU-{(n * 31 + k) % 10007:D5}",
                    Description = $"item {k} of order {n}",
                    Quantity = 1 + (n + k) % 9,
                    Price = (n % 100 + k) * 1.25m,
                });
            string json = JsonSerializer.Serialize(order);
            using var doc = JsonDocument.Parse(json);
            long sum = 0;
            foreach (var line in doc.RootElement.GetProperty("Lines").EnumerateArray())
                sum += line.GetProperty("Quantity").GetInt32();
            return sum + json.Length;
        }
    }
}
