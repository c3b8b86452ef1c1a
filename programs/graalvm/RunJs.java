// The host of the graaljs row: GraalJS has no command-line launcher on Maven
// Central, so this evaluates one JavaScript file in a polyglot Context and
// does nothing else (compiled once by `langbench toolchains install`, see
// install.setup in languages.toml). Arguments: FILE ARGS...; the script sees them as Node
// does, in process.argv (["graaljs", FILE, ARGS...]), and prints with
// GraalJS's own console.log to this process's stdout. `--version` prints the
// GraalJS version and which runtime runs it ("Interpreted" when the Graal
// compiler is not in use); `--require-jit` fails unless it is in use.
import java.io.File;
import org.graalvm.polyglot.Context;
import org.graalvm.polyglot.Engine;
import org.graalvm.polyglot.PolyglotException;
import org.graalvm.polyglot.Source;

public class RunJs {
    public static void main(String[] args) throws Exception {
        if (args.length == 1 && args[0].equals("--require-jit")) {
            // Run once at install: extracts Truffle's native support library
            // into the resource cache (read-only in langbench's sandbox),
            // and fails unless the optimizing runtime is in use.
            try (Engine engine = Engine.newBuilder("js").build()) {
                String runtime = engine.getImplementationName();
                if (runtime.equals("Interpreted")) {
                    System.err.println("GraalJS runs interpreted only: the Graal compiler is not in use");
                    System.exit(1);
                }
                System.out.println("GraalJS runtime: " + runtime);
            }
            return;
        }
        if (args.length == 1 && args[0].equals("--version")) {
            try (Engine engine = Engine.newBuilder("js").build()) {
                // GraalJS's jar says its version; Engine.getVersion() says
                // "Development Build" for the Maven Central artifacts.
                String version = engine.getVersion();
                var js = ModuleLayer.boot().configuration().findModule("org.graalvm.js");
                if (js.isPresent() && js.get().reference().location().isPresent()) {
                    try (var jar = new java.util.jar.JarFile(new File(js.get().reference().location().get()))) {
                        version = jar.getManifest().getMainAttributes().getValue("Implementation-Version");
                    }
                }
                System.out.println("GraalJS " + version
                        + " (runtime: " + engine.getImplementationName() + ")");
            }
            return;
        }
        String[] argv = new String[args.length + 1];
        argv[0] = "graaljs";
        System.arraycopy(args, 0, argv, 1, args.length);
        try (Context context = Context.newBuilder("js").build()) {
            context.getBindings("js").putMember("process", context.eval("js", "({argv: []})"));
            var jsArgv = context.eval("js", "process.argv");
            for (String a : argv) {
                jsArgv.setArrayElement(jsArgv.getArraySize(), a);
            }
            context.eval(Source.newBuilder("js", new File(args[0])).build());
        } catch (PolyglotException e) {
            if (e.isExit()) {
                System.exit(e.getExitStatus());
            }
            throw e;
        }
    }
}
