void main(List<String> args) {
  final n = args.isNotEmpty ? int.parse(args[0]) : 10000000;
  final a = List<double>.generate(n, (i) => (n - i).toDouble());

  var gap = n;
  while (true) {
    gap = (gap / 1.3).floor();
    if (gap == 9 || gap == 10) gap = 11;
    if (gap < 1) gap = 1;
    var swapped = false;
    for (var i = 0; i < n - gap; i++) {
      if (a[i] > a[i + gap]) {
        final t = a[i];
        a[i] = a[i + gap];
        a[i + gap] = t;
        swapped = true;
      }
    }
    if (gap == 1 && !swapped) break;
  }

  var bad = 0;
  for (var i = 1; i < n; i++) {
    if (a[i] < a[i - 1]) bad++;
  }
  print('$bad ${a[0].toInt()} ${a[n - 1].toInt()}');
}
