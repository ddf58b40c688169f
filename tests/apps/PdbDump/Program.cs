// PdbDump: the oracle of jitscope's source lines (tests/e2e/pdb.test.mjs). For an assembly it
// reads the portable PDB with System.Reflection.Metadata, independent of jitscope's own reader
// (server/pdb.c): the PDB embedded in the assembly when it has one, else the .pdb beside it.
// It prints one JSON object: {"embedded", "methods": [{"token", "points": [{"il_offset",
// "hidden", "line", "column", "end_line", "end_column", "file"}]}]}, every method that has
// debug information, in token order.
using System;
using System.IO;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Reflection.PortableExecutable;
using System.Text.Json;

namespace JitscopePdbDump
{
    public static class Program
    {
        public static int Main(string[] args)
        {
            if (args.Length != 1)
            {
                Console.Error.WriteLine("usage: PdbDump ASSEMBLY.dll");
                return 2;
            }
            using var pe = new PEReader(File.OpenRead(args[0]));
            MetadataReaderProvider? provider = null;
            bool embedded = false;
            foreach (var entry in pe.ReadDebugDirectory())
            {
                if (entry.Type == DebugDirectoryEntryType.EmbeddedPortablePdb)
                {
                    provider = pe.ReadEmbeddedPortablePdbDebugDirectoryData(entry);
                    embedded = true;
                    break;
                }
            }
            provider ??= MetadataReaderProvider.FromPortablePdbStream(
                File.OpenRead(Path.ChangeExtension(args[0], ".pdb")));
            using (provider)
            {
                var pdb = provider.GetMetadataReader();
                using var json = new Utf8JsonWriter(Console.OpenStandardOutput());
                json.WriteStartObject();
                json.WriteBoolean("embedded", embedded);
                json.WriteStartArray("methods");
                foreach (var handle in pdb.MethodDebugInformation)
                {
                    var info = pdb.GetMethodDebugInformation(handle);
                    if (info.SequencePointsBlob.IsNil)
                        continue;
                    json.WriteStartObject();
                    json.WriteNumber("token", MetadataTokens.GetToken(handle.ToDefinitionHandle()));
                    json.WriteStartArray("points");
                    foreach (var sp in info.GetSequencePoints())
                    {
                        json.WriteStartObject();
                        json.WriteNumber("il_offset", sp.Offset);
                        json.WriteBoolean("hidden", sp.IsHidden);
                        if (!sp.IsHidden)
                        {
                            json.WriteNumber("line", sp.StartLine);
                            json.WriteNumber("column", sp.StartColumn);
                            json.WriteNumber("end_line", sp.EndLine);
                            json.WriteNumber("end_column", sp.EndColumn);
                        }
                        json.WriteString("file", pdb.GetString(pdb.GetDocument(sp.Document).Name));
                        json.WriteEndObject();
                    }
                    json.WriteEndArray();
                    json.WriteEndObject();
                }
                json.WriteEndArray();
                json.WriteEndObject();
            }
            return 0;
        }
    }
}
