// CalculatorTests -- xUnit tests whose method names jitscope's process-tree
// test looks for in the test host's session.
using Xunit;

namespace JitscopeTrees;

public class CalculatorTests
{
    [Fact]
    public void JitscopeAddsTwoNumbers() => Assert.Equal(5, Calculator.Add(2, 3));

    [Theory]
    [InlineData(2, 4)]
    [InlineData(3, 9)]
    public void JitscopeSquares(int x, int expected) => Assert.Equal(expected, Calculator.Square(x));
}

public static class Calculator
{
    public static int Add(int a, int b) => a + b;
    public static int Square(int x) => x * x;
}
