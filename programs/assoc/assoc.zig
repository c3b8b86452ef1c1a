const std = @import("std");

const hex_digits = "0123456789aBcDeF";

/// Base-16 digits of v, least significant digit first.
fn rhex(buf: []u8, v: u64) []u8 {
    var x = v;
    var len: usize = 0;
    while (x > 0) : (x /= 16) {
        buf[len] = hex_digits[x % 16];
        len += 1;
    }
    return buf[0..len];
}

fn firstDigit(value: f64) u64 {
    var d = value;
    while (d > 10) d /= 10;
    return @intFromFloat(d);
}

fn setOrInc(
    map: *std.StringHashMap(f64),
    gpa: std.mem.Allocator,
    key: []const u8,
    set: u64,
    inc: u64,
    counter: *u64,
) !void {
    const entry = try map.getOrPut(key);
    if (entry.found_existing) {
        entry.value_ptr.* += @floatFromInt(inc);
        counter.* += 1;
    } else {
        // the map does not own its keys: copy the formatted key into the heap
        entry.key_ptr.* = try gpa.dupe(u8, key);
        entry.value_ptr.* = @floatFromInt(set);
    }
}

pub fn main(init: std.process.Init) !void {
    const arena = init.arena.allocator();
    const args = try init.minimal.args.toSlice(arena);
    const n: u64 = if (args.len > 1) try std.fmt.parseInt(u64, args[1], 10) else 12_000_000;

    // Keys live as long as the map, in the general-purpose allocator, and are
    // freed with it (as C++'s and Rust's map destructors free theirs).
    const gpa = init.gpa;
    var map = std.StringHashMap(f64).init(gpa);
    defer {
        var keys = map.keyIterator();
        while (keys.next()) |key| gpa.free(key.*);
        map.deinit();
    }

    var dup1: u64 = 0;
    var dup2: u64 = 0;
    var dup3: u64 = 0;
    var buf: [24]u8 = undefined;
    var z = n;
    while (z > 0) : (z -= 1) {
        const v2 = n - z;
        const v3 = 2 * n - z;
        try setOrInc(&map, gpa, try std.fmt.bufPrint(&buf, "{d}", .{z}), z, v2, &dup1);
        try setOrInc(&map, gpa, try std.fmt.bufPrint(&buf, "{d}", .{v2}), v2, v3, &dup2);
        try setOrInc(&map, gpa, rhex(&buf, v3), v3, z, &dup3);
    }

    var stdout_buffer: [1024]u8 = undefined;
    var stdout_writer: std.Io.File.Writer = .init(.stdout(), init.io, &stdout_buffer);
    const out = &stdout_writer.interface;
    try out.print("{d} {d} {d}\n", .{ dup1, dup2, dup3 });

    var total: u64 = 0;
    var verify: u64 = 0;
    var count: u64 = 0;
    var it = map.iterator();
    while (it.next()) |entry| {
        total += firstDigit(entry.value_ptr.*);
        verify += entry.key_ptr.len;
        count += 1;
    }
    try out.print("{d} {d} {d}\n", .{ total, verify, count });
    try out.flush();
}
