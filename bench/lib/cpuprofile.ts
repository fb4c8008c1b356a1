/** Summarises a V8 .cpuprofile (the JS main thread): self time by function and by project module. */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  totalMs: number;
  /** Self time by function, largest first. */
  functions: Array<{ name: string; ms: number }>;
  /** Self time by where the code lives: an engine folder, a dependency, or V8's own buckets. */
  modules: Array<{ name: string; ms: number }>;
}

function moduleOf(url: string, fn: string): string {
  if (!url) return fn.startsWith('(') ? fn : '(native)';
  const dep = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (dep) return dep[1]!;
  const own = /packages\/(\w+)\/(?:dist|src)\/(?:(\w[\w-]*)\/)?/.exec(url);
  if (own) return own[2] ? `${own[1]}/${own[2]}` : own[1]!;
  if (url.startsWith('node:')) return 'node';
  return url.split('/').slice(-2).join('/');
}

export function summariseProfile(path: string, top = 15): ProfileSummary {
  const p = JSON.parse(readFileSync(path, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  for (let i = 0; i < p.samples.length; i++)
    self.set(p.samples[i]!, (self.get(p.samples[i]!) ?? 0) + (p.timeDeltas[i] ?? 0) / 1000);
  const fns = new Map<string, number>();
  const mods = new Map<string, number>();
  let totalMs = 0;
  for (const [id, ms] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === '(idle)') continue;
    totalMs += ms;
    const file = url ? `${url.split('/').slice(-2).join('/')}:${lineNumber + 1}` : '';
    const name = `${functionName || '(anonymous)'}${file ? ` ${file}` : ''}`;
    fns.set(name, (fns.get(name) ?? 0) + ms);
    const mod = moduleOf(url, functionName);
    mods.set(mod, (mods.get(mod) ?? 0) + ms);
  }
  const sorted = (m: Map<string, number>) =>
    [...m].map(([name, ms]) => ({ name, ms })).sort((a, b) => b.ms - a.ms);
  return { totalMs, functions: sorted(fns).slice(0, top), modules: sorted(mods).slice(0, top) };
}
