// The host of the GraalVM rows (graaljs, graalpy): GraalJS and GraalPy have
// no command-line launcher on Maven Central, so
// this evaluates one program file in a polyglot Context and does nothing else
// (compiled once by `langbench toolchains install`, see install.setup in
// languages.toml).
//
//   Polyglot LANG FILE ARGS...   run FILE; it sees FILE ARGS... as its
//                                language's own launcher gives them
//                                (process.argv, sys.argv)
//   Polyglot LANG --version      the implementation's version, the language
//                                version and which runtime runs it
//                                ("Interpreted": the Graal compiler is not in use)
//   Polyglot LANG --require-jit  run at install: unpacks the language's
//                                resources into the resource cache (read-only
//                                in langbench's sandbox) and fails unless the
//                                optimizing runtime is in use
//
// LANG is a polyglot language id: js or python. Output goes through
// the language's own print functions to this process's stdout.
import java.io.File;
import java.util.Map;
import org.graalvm.polyglot.Context;
import org.graalvm.polyglot.Engine;
import org.graalvm.polyglot.Language;
import org.graalvm.polyglot.PolyglotException;
import org.graalvm.polyglot.Source;

public class Polyglot {
    // The name each implementation goes by, and the module whose jar
    // manifest carries its release version (Engine.getVersion() says
    // "Development Build" for the Maven Central artifacts).
    static final Map<String, String[]> IMPLEMENTATIONS = Map.of(
            "js", new String[] {"GraalJS", "org.graalvm.js", "graaljs"},
            "python", new String[] {"GraalPy", "org.graalvm.py", "graalpy"});

    public static void main(String[] args) throws Exception {
        if (args.length < 2 || !IMPLEMENTATIONS.containsKey(args[0])) {
            System.err.println("usage: Polyglot js|python (FILE ARGS... | --version | --require-jit)");
            System.exit(2);
        }
        String lang = args[0];
        String[] impl = IMPLEMENTATIONS.get(lang);
        if (args.length == 2 && args[1].equals("--require-jit")) {
            // A context that evaluates something makes the language unpack
            // its home (GraalPy's standard library) into the resource cache
            // now, where it may write.
            try (Context context = builder(lang).build()) {
                context.eval(lang, "1");
                String runtime = context.getEngine().getImplementationName();
                if (runtime.equals("Interpreted")) {
                    System.err.println(impl[0] + " runs interpreted only: the Graal compiler is not in use");
                    System.exit(1);
                }
                System.out.println(impl[0] + " runtime: " + runtime);
            }
            return;
        }
        if (args.length == 2 && args[1].equals("--version")) {
            try (Engine engine = Engine.newBuilder(lang).build()) {
                String version = engine.getVersion();
                var module = ModuleLayer.boot().configuration().findModule(impl[1]);
                if (module.isPresent() && module.get().reference().location().isPresent()) {
                    try (var jar = new java.util.jar.JarFile(new File(module.get().reference().location().get()))) {
                        String v = jar.getManifest().getMainAttributes().getValue("Implementation-Version");
                        if (v != null) {
                            version = v;
                        }
                    }
                }
                Language language = engine.getLanguages().get(lang);
                String languageVersion = lang.equals("js") ? "" : language.getName() + " " + language.getVersion() + "; ";
                System.out.println(impl[0] + " " + version + " (" + languageVersion
                        + "runtime: " + engine.getImplementationName() + ")");
            }
            return;
        }
        String file = args[1];
        String[] programArgs = new String[args.length - 2];
        System.arraycopy(args, 2, programArgs, 0, programArgs.length);
        Context.Builder builder = builder(lang);
        if (!lang.equals("js")) {
            // GraalPy takes the program's arguments as its launcher does:
            // sys.argv = [FILE, ARGS...].
            builder.arguments(lang, concat(file, programArgs));
        }
        try (Context context = builder.build()) {
            if (lang.equals("js")) {
                // GraalJS outside its shell has no process.argv: give the
                // script Node's (["graaljs", FILE, ARGS...]).
                context.getBindings("js").putMember("process", context.eval("js", "({argv: []})"));
                var argv = context.eval("js", "process.argv");
                for (String a : concat(impl[2], concat(file, programArgs))) {
                    argv.setArrayElement(argv.getArraySize(), a);
                }
            }
            context.eval(Source.newBuilder(lang, new File(file)).build());
        } catch (PolyglotException e) {
            if (e.isExit()) {
                System.exit(e.getExitStatus());
            }
            throw e;
        }
    }

    // GraalPy reads its standard library as under its own launcher (which
    // allows everything); GraalJS needs nothing beyond the default.
    static Context.Builder builder(String lang) {
        Context.Builder builder = Context.newBuilder(lang);
        return lang.equals("js") ? builder : builder.allowAllAccess(true);
    }

    static String[] concat(String first, String[] rest) {
        String[] all = new String[rest.length + 1];
        all[0] = first;
        System.arraycopy(rest, 0, all, 1, rest.length);
        return all;
    }
}
