/**
 * `mouthpiece avatars add|list|remove|encode-video`: operator commands on the data directory's avatar packs
 * (`<dataDir>/avatars`, the folder POST /admin/v1/avatars writes). A running server sees a change
 * at its next catalog read (a catalog request or a session's creation): the folder's mtime moved, so
 * its engine pool reads the packs again and hands them to its engine processes.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import {
  BUILTIN_AVATARS_DIR,
  fileLooksLikeVideo,
  PhotoImportError,
  readAvatarPacks,
  runPhotoImport,
  runVideoImport,
  VideoImportError,
  VIDEO_LIMITS,
} from '@mouthpiece/engine/jobs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { checkNewAvatarId, removeUploadedAvatar, uploadedAvatarsDir } from '../avatars/uploaded-avatars.js';
import { encodeVideoPacks } from './encode-video-command.js';
import type { CliIo } from './io.js';
import { UsageError } from './usage.js';

export const AVATARS_USAGE = `Usage: mouthpiece avatars <add|list|remove|encode-video> [options]

  add FILE --id ID --name NAME [--description TEXT] [--json]
                          make a photo avatar from a portrait (PNG or JPEG, one face at least
                          128 px across, at most 4096 px a side and 20 MiB), or a video avatar
                          from a clip of one person talking to the camera (MP4, WebM or MOV,
                          20 s to 3 min, at most 200 MiB; needs ffmpeg; about a minute of
                          work per minute of clip, progress on stderr)
  list [--json]           every avatar: built in, from MOUTHPIECE_AVATARS_DIR and added
  remove ID               remove an added avatar (sessions using it finish normally)
  encode-video [ID]       write the VP9 frames browsers download instead of the raw ones into
                          video avatars imported before imports wrote them (needs ffmpeg)

Options: --data-dir DIR (default $MOUTHPIECE_DATA_DIR or ./data). Exit codes: 0 done, 1 usage,
2 not found, 3 the image or video was refused (the message says why).
`;

const options = {
  json: { type: 'boolean', default: false },
  'data-dir': { type: 'string' },
  id: { type: 'string' },
  name: { type: 'string' },
  description: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

export async function avatarsCommand(sub: string | undefined, args: string[], io: CliIo): Promise<number> {
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help' || args.includes('--help')) {
    io.stdout(AVATARS_USAGE);
    return 0;
  }
  if (sub !== 'add' && sub !== 'list' && sub !== 'remove' && sub !== 'encode-video')
    throw new UsageError(
      `unknown avatars command "${sub}" (add, list, remove or encode-video)`,
      AVATARS_USAGE,
    );
  let parsed;
  try {
    parsed = parseArgs({ args, allowPositionals: true, options, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message, AVATARS_USAGE);
  }
  const { values, positionals } = parsed;
  const wanted = sub === 'list' ? 0 : 1;
  if (sub === 'encode-video' ? positionals.length > 1 : positionals.length !== wanted)
    throw new UsageError(
      wanted === 0
        ? `avatars list takes no arguments (got "${positionals.join(' ')}")`
        : `avatars ${sub} needs ${sub === 'add' ? 'one FILE (a portrait or a clip)' : 'one ID'}`,
      AVATARS_USAGE,
    );
  const config = loadConfig(
    values['data-dir'] ? { ...io.env, MOUTHPIECE_DATA_DIR: values['data-dir'] } : io.env,
  );
  const dir = uploadedAvatarsDir(config);
  const dirs = [BUILTIN_AVATARS_DIR, ...(config.avatarsDir ? [config.avatarsDir] : []), dir];
  const { packs } = readAvatarPacks(dirs.filter((d) => existsSync(d)));

  if (sub === 'list') {
    const rows = packs.map((p) => ({
      id: p.manifest.id,
      name: p.manifest.name,
      render: p.manifest.render,
      added: p.dir.startsWith(dir),
    }));
    if (values.json) io.stdout(`${JSON.stringify(rows)}\n`);
    else
      for (const r of rows)
        io.stdout(`${r.id.padEnd(20)} ${r.render.padEnd(7)} ${r.added ? 'added ' : 'pack  '} ${r.name}\n`);
    return 0;
  }

  if (sub === 'encode-video') return encodeVideoPacks(packs, positionals[0], values.json, io);

  if (sub === 'remove') {
    const id = positionals[0]!;
    const removed = await removeUploadedAvatar(dir, id, (a) => packs.some((p) => p.manifest.id === a));
    if (!removed.ok) {
      io.stderr(
        removed.reason === 'read_only'
          ? `mouthpiece: avatar "${id}" is built in or comes from MOUTHPIECE_AVATARS_DIR; only added avatars can be removed\n`
          : `mouthpiece: no added avatar "${id}" (mouthpiece avatars list)\n`,
      );
      return removed.reason === 'read_only' ? 1 : 2;
    }
    io.stdout(values.json ? `${JSON.stringify({ id, removed: true })}\n` : `removed avatar ${id}\n`);
    return 0;
  }

  if (!values.id) throw new UsageError('avatars add needs --id ID', AVATARS_USAGE);
  if (!values.name) throw new UsageError('avatars add needs --name NAME', AVATARS_USAGE);
  const file = positionals[0]!;
  let video: boolean;
  try {
    video = await fileLooksLikeVideo(file);
  } catch {
    io.stderr(`mouthpiece: cannot read ${file}\n`);
    return 2;
  }
  const idCheck = checkNewAvatarId(dir, values.id, (a) => packs.some((p) => p.manifest.id === a));
  if (!idCheck.ok) {
    io.stderr(
      idCheck.reason === 'invalid'
        ? `mouthpiece: --id "${values.id}" ${idCheck.message}\n`
        : `mouthpiece: ${idCheck.message}\n`,
    );
    return 3;
  }
  await mkdir(dir, { recursive: true });
  const req = { id: values.id, name: values.name, description: values.description };
  const done = (m: { id: string; name: string; render: string }, kind: string): number => {
    io.stdout(
      values.json
        ? `${JSON.stringify({ id: m.id, name: m.name, render: m.render, dir: join(dir, m.id) })}\n`
        : `added ${kind} avatar ${m.id} (${join(dir, m.id)})\n`,
    );
    return 0;
  };
  if (video) return addVideo(file, req, dir, io, done);
  try {
    // in a child process, as a video import (decoding and face detection load Skia and face-api)
    const m = await runPhotoImport({ ...req, image: readFileSync(file) }, dir);
    return done(m, 'photo');
  } catch (err) {
    if (err instanceof PhotoImportError) {
      io.stderr(`mouthpiece: ${err.message}\n`);
      return 3;
    }
    throw err;
  }
}

async function addVideo(
  file: string,
  req: { id: string; name: string; description: string | undefined },
  dir: string,
  io: CliIo,
  done: (m: { id: string; name: string; render: string }, kind: string) => number,
): Promise<number> {
  if (statSync(file).size > VIDEO_LIMITS.maxBytes) {
    io.stderr(`mouthpiece: the video is over ${VIDEO_LIMITS.maxBytes / 1024 / 1024} MiB\n`);
    return 3;
  }
  let last = '';
  try {
    const { manifest } = await runVideoImport({ ...req, file }, dir, (stage, fraction) => {
      const line = `importing ${file}: ${stage} ${Math.floor(fraction * 10) * 10} %`;
      if (line !== last) io.stderr(`${line}\n`);
      last = line;
    });
    return done(manifest, 'video');
  } catch (err) {
    if (err instanceof VideoImportError) {
      io.stderr(`mouthpiece: ${err.message}\n`);
      return 3;
    }
    throw err;
  }
}
