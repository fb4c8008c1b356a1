/**
 * Delaunay triangulation of a few hundred points (Bowyer–Watson, O(n²)), run once per photo
 * avatar to mesh its landmarks. Returns triangles as index triples, counter-clockwise.
 */
export function triangulate(
  points: ReadonlyArray<readonly [number, number]>,
): Array<[number, number, number]> {
  const n = points.length;
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const [x, y] of points) {
    minX = Math.min(minX, x);
    minY = Math.min(minY, y);
    maxX = Math.max(maxX, x);
    maxY = Math.max(maxY, y);
  }
  const d = Math.max(maxX - minX, maxY - minY) * 20 + 1;
  const mx = (minX + maxX) / 2;
  const my = (minY + maxY) / 2;
  const pts: Array<readonly [number, number]> = [...points, [mx - d, my - d], [mx + d, my - d], [mx, my + d]];
  interface Tri {
    v: [number, number, number];
    cx: number;
    cy: number;
    r2: number;
  }
  const make = (a: number, b: number, c: number): Tri => {
    const [ax, ay] = pts[a]!;
    const [bx, by] = pts[b]!;
    const [cx, cy] = pts[c]!;
    const det = 2 * (ax * (by - cy) + bx * (cy - ay) + cx * (ay - by));
    const a2 = ax * ax + ay * ay;
    const b2 = bx * bx + by * by;
    const c2 = cx * cx + cy * cy;
    const ux = (a2 * (by - cy) + b2 * (cy - ay) + c2 * (ay - by)) / det;
    const uy = (a2 * (cx - bx) + b2 * (ax - cx) + c2 * (bx - ax)) / det;
    return { v: [a, b, c], cx: ux, cy: uy, r2: (ax - ux) ** 2 + (ay - uy) ** 2 };
  };
  let tris: Tri[] = [make(n, n + 1, n + 2)];
  for (let i = 0; i < n; i++) {
    const [px, py] = pts[i]!;
    const bad: Tri[] = [];
    const keep: Tri[] = [];
    for (const t of tris) ((px - t.cx) ** 2 + (py - t.cy) ** 2 < t.r2 ? bad : keep).push(t);
    const edges = new Map<string, [number, number]>();
    for (const t of bad)
      for (let e = 0; e < 3; e++) {
        const a = t.v[e]!;
        const b = t.v[(e + 1) % 3]!;
        const key = a < b ? `${a},${b}` : `${b},${a}`;
        if (edges.has(key)) edges.delete(key);
        else edges.set(key, [a, b]);
      }
    for (const [a, b] of edges.values()) keep.push(make(a, b, i));
    tris = keep;
  }
  const out: Array<[number, number, number]> = [];
  for (const t of tris) {
    const [a, b, c] = t.v;
    if (a >= n || b >= n || c >= n) continue;
    const [ax, ay] = pts[a]!;
    const [bx, by] = pts[b]!;
    const [cx, cy] = pts[c]!;
    const area = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
    if (area === 0) continue;
    out.push(area > 0 ? [a, b, c] : [a, c, b]);
  }
  return out;
}
