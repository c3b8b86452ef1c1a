// assoc: Map<String, Float> (haxe.ds.StringMap), lookup then store.
class Main {
	static inline var HEX = "0123456789aBcDeF";

	// base-16 digits of v, least significant digit first
	static function rhex(v:Int):String {
		var b = new StringBuf();
		while (v > 0) {
			b.addChar(HEX.charCodeAt(v % 16));
			v = Std.int(v / 16);
		}
		return b.toString();
	}

	static function firstDigit(d:Float):Int {
		while (d > 10)
			d /= 10;
		return Std.int(d);
	}

	static function main() {
		var arg = Io.arg();
		var n = arg != null ? Std.parseInt(arg) : 12000000;
		var m = new Map<String, Float>();
		var dup1 = 0, dup2 = 0, dup3 = 0;
		var z = n;
		while (z >= 1) {
			var v2 = n - z;
			var v3 = 2 * n - z;

			var key = Std.string(z);
			var old = m.get(key);
			if (old != null) {
				m.set(key, old + v2);
				dup1++;
			} else
				m.set(key, z);

			key = Std.string(v2);
			old = m.get(key);
			if (old != null) {
				m.set(key, old + v3);
				dup2++;
			} else
				m.set(key, v2);

			key = rhex(v3);
			old = m.get(key);
			if (old != null) {
				m.set(key, old + z);
				dup3++;
			} else
				m.set(key, v3);
			z--;
		}
		Io.println('$dup1 $dup2 $dup3');

		var total = 0, verify = 0, count = 0;
		for (key => value in m) {
			total += firstDigit(value);
			verify += key.length;
			count++;
		}
		Io.println('$total $verify $count');
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
