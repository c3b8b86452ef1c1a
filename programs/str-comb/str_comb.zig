const std = @import("std");

pub fn main(init: std.process.Init) !void {
    const gpa = init.gpa;
    const arena = init.arena.allocator();
    const args = try init.minimal.args.toSlice(arena);
    const n: usize = if (args.len > 1) try std.fmt.parseInt(usize, args[1], 10) else 10_000_000;

    // Each string is its own general-purpose allocation, freed with the list
    // (as C++'s and Rust's destructors free theirs).
    var list: std.ArrayList([]const u8) = try .initCapacity(gpa, n);
    defer {
        for (list.items) |s| gpa.free(s);
        list.deinit(gpa);
    }
    for (0..n) |i| list.appendAssumeCapacity(try std.fmt.allocPrint(gpa, "{d}", .{n - i}));
    const a = list.items;

    var gap = n;
    while (true) {
        gap = @intFromFloat(@as(f64, @floatFromInt(gap)) / 1.3);
        if (gap == 9 or gap == 10) gap = 11;
        if (gap < 1) gap = 1;
        var swapped = false;
        var i: usize = 0;
        while (i + gap < n) : (i += 1) {
            if (std.mem.order(u8, a[i], a[i + gap]) == .gt) {
                std.mem.swap([]const u8, &a[i], &a[i + gap]);
                swapped = true;
            }
        }
        if (gap == 1 and !swapped) break;
    }

    var bad: usize = 0;
    for (1..n) |i| {
        if (std.mem.lessThan(u8, a[i], a[i - 1])) bad += 1;
    }

    var stdout_buffer: [256]u8 = undefined;
    var stdout_writer: std.Io.File.Writer = .init(.stdout(), init.io, &stdout_buffer);
    const out = &stdout_writer.interface;
    try out.print("{d} {s} {s}\n", .{ bad, a[0], a[n - 1] });
    try out.flush();
}
