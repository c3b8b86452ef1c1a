const hex = '0123456789aBcDeF';

String rhex(int v) {
  final sb = StringBuffer();
  while (v > 0) {
    sb.write(hex[v % 16]);
    v ~/= 16;
  }
  return sb.toString();
}

int firstDigit(double d) {
  while (d > 10) {
    d /= 10;
  }
  return d.toInt();
}

void main(List<String> args) {
  final n = args.isNotEmpty ? int.parse(args[0]) : 12000000;
  final m = <String, double>{};
  var dup1 = 0, dup2 = 0, dup3 = 0;
  for (var z = n; z > 0; z--) {
    final v2 = n - z;
    final v3 = 2 * n - z;

    final key1 = z.toString();
    final old1 = m[key1];
    if (old1 != null) {
      m[key1] = old1 + v2;
      dup1++;
    } else {
      m[key1] = z.toDouble();
    }

    final key2 = v2.toString();
    final old2 = m[key2];
    if (old2 != null) {
      m[key2] = old2 + v3;
      dup2++;
    } else {
      m[key2] = v2.toDouble();
    }

    final key3 = rhex(v3);
    final old3 = m[key3];
    if (old3 != null) {
      m[key3] = old3 + z;
      dup3++;
    } else {
      m[key3] = v3.toDouble();
    }
  }
  print('$dup1 $dup2 $dup3');

  var total = 0, verify = 0, count = 0;
  for (final entry in m.entries) {
    total += firstDigit(entry.value);
    verify += entry.key.length; // ASCII keys: UTF-16 code units == bytes
    count++;
  }
  print('$total $verify $count');
}
