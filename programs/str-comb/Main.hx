// str-comb: comb sort of an Array<String> (String comparison: by character code).
class Main {
	static function main() {
		var arg = Io.arg();
		var n = arg != null ? Std.parseInt(arg) : 10000000;
		var a:Array<String> = [for (i in 0...n) Std.string(n - i)];

		var gap = n;
		while (true) {
			gap = Std.int(gap / 1.3);
			if (gap == 9 || gap == 10)
				gap = 11;
			if (gap < 1)
				gap = 1;
			var swapped = false;
			for (i in 0...n - gap) {
				if (a[i] > a[i + gap]) {
					var t = a[i];
					a[i] = a[i + gap];
					a[i + gap] = t;
					swapped = true;
				}
			}
			if (gap == 1 && !swapped)
				break;
		}

		var bad = 0;
		for (i in 1...n)
			if (a[i] < a[i - 1])
				bad++;
		Io.println('$bad ${a[0]} ${a[n - 1]}');
	}
}

// The first argument and printing a line: Sys on the sys targets (eval);
// on the JavaScript target (no Sys without the hxnodejs haxelib), node's
// process.argv and console.log.
class Io {
	public static function arg():Null<String> {
		#if js
		var argv:Array<String> = js.Syntax.code("process.argv");
		return argv.length > 2 ? argv[2] : null;
		#else
		var args = Sys.args();
		return args.length > 0 ? args[0] : null;
		#end
	}

	public static function println(s:String):Void {
		#if js
		js.html.Console.log(s);
		#else
		Sys.println(s);
		#end
	}
}
