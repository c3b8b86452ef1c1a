const std = @import("std");

pub fn main(init: std.process.Init) !void {
    const gpa = init.gpa;
    const args = try init.minimal.args.toSlice(init.arena.allocator());
    const n: usize = if (args.len > 1) try std.fmt.parseInt(usize, args[1], 10) else 10_000_000;

    var list: std.ArrayList(f64) = try .initCapacity(gpa, n);
    defer list.deinit(gpa);
    for (0..n) |i| list.appendAssumeCapacity(@floatFromInt(n - i));
    const a = list.items;

    var gap = n;
    while (true) {
        gap = @intFromFloat(@as(f64, @floatFromInt(gap)) / 1.3);
        if (gap == 9 or gap == 10) gap = 11;
        if (gap < 1) gap = 1;
        var swapped = false;
        var i: usize = 0;
        while (i + gap < n) : (i += 1) {
            if (a[i] > a[i + gap]) {
                std.mem.swap(f64, &a[i], &a[i + gap]);
                swapped = true;
            }
        }
        if (gap == 1 and !swapped) break;
    }

    var bad: usize = 0;
    for (1..n) |i| {
        if (a[i] < a[i - 1]) bad += 1;
    }

    var stdout_buffer: [256]u8 = undefined;
    var stdout_writer: std.Io.File.Writer = .init(.stdout(), init.io, &stdout_buffer);
    const out = &stdout_writer.interface;
    const first: i64 = @intFromFloat(a[0]);
    const last: i64 = @intFromFloat(a[n - 1]);
    try out.print("{d} {d} {d}\n", .{ bad, first, last });
    try out.flush();
}
