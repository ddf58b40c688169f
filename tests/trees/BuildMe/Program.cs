// BuildMe -- a small program for jitscope's process-tree test to compile.
namespace BuildMe;

public static class Program
{
    public static int Main(string[] args) => Shapes.Area(new Square(3)) > 0 ? 0 : 1;
}

public interface IShape
{
    double Area();
}

public sealed record Square(double Side) : IShape
{
    public double Area() => Side * Side;
}

public static class Shapes
{
    public static double Area(IShape shape) => shape.Area();
}
