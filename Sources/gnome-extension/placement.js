// Where the background goes for a viewer offset: moved by the depth the user set, scaled up about
// its centre just enough that no edge is uncovered at any offset in [-1, 1] (docs/gnome.md).
// Plain JavaScript with no imports, shared by both builds (see protocol.js).
/* exported travel, placement, visibleRect */

/** The travel at full offset, {x, y} in the monitor's logical pixels, of a depth setting: `depth`
 * logical pixels (unit "pixels") or `depth` × the monitor's width and height (unit "fraction").
 * Negative = recessed: the background moves against the tilt. Non-finite settings count as 0. */
function travel(depth, unit, width, height) {
    const d = Number.isFinite(depth) ? depth : 0;
    if (unit === 'fraction')
        return {x: d * width, y: d * height};
    return {x: d, y: d};
}

/** {scale, dx, dy} for an actor of size width×height that shows a monitor of monitorWidth
 * (the overview's workspace cards show it smaller: the travel shrinks with them) at the predicted
 * offset {x, y}: translation = travel × offset, scale (uniform, about the centre) =
 * max(1 + 2|travel.x|/W, 1 + 2|travel.y|/H), so that an edge never comes inside the monitor. */
function placement(offset, depthTravel, width, height, monitorWidth) {
    if (!(width > 0) || !(height > 0) || !(monitorWidth > 0))
        return {scale: 1, dx: 0, dy: 0};
    const shrink = width / monitorWidth;
    const tx = Math.abs(depthTravel.x) * shrink;
    const ty = Math.abs(depthTravel.y) * shrink;
    const scale = Math.max(1 + 2 * tx / width, 1 + 2 * ty / height);
    const x = Number.isFinite(offset.x) ? Math.min(Math.max(offset.x, -1), 1) : 0;
    const y = Number.isFinite(offset.y) ? Math.min(Math.max(offset.y, -1), 1) : 0;
    return {scale, dx: depthTravel.x * shrink * x, dy: depthTravel.y * shrink * y};
}

/** The rectangle {x, y, width, height} of a width×height actor's own coordinates that lands on
 * its untransformed area once the actor is scaled by p.scale about its centre and moved by
 * (p.dx, p.dy): set as its clip, the grown background never spills onto a neighbouring monitor. */
function visibleRect(p, width, height) {
    const cx = width / 2;
    const cy = height / 2;
    return {
        x: cx + (0 - cx - p.dx) / p.scale,
        y: cy + (0 - cy - p.dy) / p.scale,
        width: width / p.scale,
        height: height / p.scale,
    };
}
