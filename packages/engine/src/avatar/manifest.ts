/**
 * The avatar pack manifest (`avatar.json`), as a TypeBox schema: validation with precise errors,
 * and the types the renderer reads. See docs/avatars.md.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { AVATAR_ID_PATTERN, CodedError, RenderKind } from '@mouthpiece/protocol';

const Colour = Type.String({ pattern: '^#[0-9a-fA-F]{6}$', description: 'a colour like #a0522d' });
const Fraction = (def: number) => Type.Number({ minimum: 0, maximum: 1, default: def });

export const AvatarManifest = Type.Object(
  {
    id: Type.String({
      pattern: AVATAR_ID_PATTERN,
      description: 'lower-case letters, digits and dashes',
    }),
    name: Type.String({ minLength: 1, maxLength: 80 }),
    version: Type.Literal(1),
    description: Type.Optional(Type.String({ maxLength: 500 })),
    render: Type.Literal(RenderKind.vector),
    background: Type.Object({ top: Colour, bottom: Colour }),
    skin: Type.Object({ tone: Colour, shadow: Colour, blush: Colour }),
    face: Type.Object({
      width: Fraction(0.5),
      length: Fraction(0.5),
      jaw: Fraction(0.5),
      chin: Fraction(0.5),
    }),
    hair: Type.Object({
      style: Type.Union(['afro', 'short', 'bob', 'long', 'bun', 'buzz', 'wavy'].map((s) => Type.Literal(s))),
      color: Colour,
      highlight: Colour,
    }),
    eyes: Type.Object({
      iris: Colour,
      shape: Type.Union([Type.Literal('round'), Type.Literal('almond')]),
      size: Fraction(0.5),
    }),
    brows: Type.Object({ color: Colour, thickness: Fraction(0.5) }),
    lips: Type.Object({ color: Colour, thickness: Fraction(0.5) }),
    nose: Type.Object({ width: Fraction(0.5) }),
    clothing: Type.Object({
      style: Type.Union(['tshirt', 'collar', 'blazer', 'hoodie', 'turtleneck'].map((s) => Type.Literal(s))),
      color: Colour,
      accent: Colour,
    }),
    beard: Type.Object({
      style: Type.Union([Type.Literal('none'), Type.Literal('stubble'), Type.Literal('full')]),
      color: Colour,
    }),
    accessories: Type.Object({ glasses: Type.Boolean(), earrings: Type.Boolean() }),
  },
  { additionalProperties: false },
);
export type AvatarManifest = Static<typeof AvatarManifest>;

const Point = Type.Tuple([Type.Number(), Type.Number()], { description: 'an [x, y] pixel position' });

/**
 * A photo avatar: one portrait and its 68 face landmarks (iBUG 300-W order: jaw 0–16, brows
 * 17–26, nose 27–35, eyes 36–47, lips 48–67) in the portrait's pixels. Written by the importer
 * (avatar/photo-import.ts) from detected landmarks; landmarks written by hand win.
 */
export const PhotoAvatarManifest = Type.Object(
  {
    id: AvatarManifest.properties.id,
    name: AvatarManifest.properties.name,
    version: Type.Literal(1),
    description: Type.Optional(Type.String({ maxLength: 500 })),
    render: Type.Literal(RenderKind.photo),
    image: Type.String({
      pattern: '^[A-Za-z0-9_.-]+\\.(png|jpg|jpeg)$',
      description: 'a PNG or JPEG file name in the pack folder',
    }),
    landmarks: Type.Array(Point, { minItems: 68, maxItems: 68, description: '68 [x, y] landmarks' }),
    /** Where the avatar came from: `upload` packs can be removed through the admin API. */
    source: Type.Optional(Type.Union([Type.Literal('upload'), Type.Literal('pack')])),
  },
  { additionalProperties: false },
);
export type PhotoAvatarManifest = Static<typeof PhotoAvatarManifest>;

const PngFile = Type.String({
  pattern: '^[A-Za-z0-9_.-]+\\.png$',
  description: 'a PNG file name in the pack folder',
});
const Rect = Type.Object(
  {
    x: Type.Integer({ minimum: 0 }),
    y: Type.Integer({ minimum: 0 }),
    width: Type.Integer({ minimum: 1 }),
    height: Type.Integer({ minimum: 1 }),
  },
  { additionalProperties: false },
);

/**
 * A sprite avatar: a base picture, one picture per mouth shape (A–H and X) drawn over it at an
 * anchor rectangle, and optional blink pictures (half-closed, closed) at their own rectangle.
 * Transparent pixels of the base show the background colour.
 */
export const SpriteAvatarManifest = Type.Object(
  {
    id: AvatarManifest.properties.id,
    name: AvatarManifest.properties.name,
    version: Type.Literal(1),
    description: Type.Optional(Type.String({ maxLength: 500 })),
    render: Type.Literal(RenderKind.sprites),
    size: Type.Object(
      {
        width: Type.Integer({ minimum: 16, maximum: 4096 }),
        height: Type.Integer({ minimum: 16, maximum: 4096 }),
      },
      { additionalProperties: false },
    ),
    base: PngFile,
    background: Type.Optional(Colour),
    mouth: Type.Object(
      {
        anchor: Rect,
        shapes: Type.Object(
          Object.fromEntries([...'ABCDEFGHX'].map((v) => [v, PngFile])) as Record<
            'A' | 'B' | 'C' | 'D' | 'E' | 'F' | 'G' | 'H' | 'X',
            typeof PngFile
          >,
          { additionalProperties: false },
        ),
      },
      { additionalProperties: false },
    ),
    blink: Type.Optional(
      Type.Object(
        { anchor: Rect, images: Type.Array(PngFile, { minItems: 1, maxItems: 2 }) },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type SpriteAvatarManifest = Static<typeof SpriteAvatarManifest>;

/**
 * A video avatar: made by the import from a clip of a person talking (video/video-import.ts). The
 * pack's other files (video.json, base.i420, mouths.i420, preview.png) are described in
 * video/pack.ts; this manifest only names the avatar.
 */
export const VideoAvatarManifest = Type.Object(
  {
    id: AvatarManifest.properties.id,
    name: AvatarManifest.properties.name,
    version: Type.Literal(1),
    description: Type.Optional(Type.String({ maxLength: 500 })),
    render: Type.Literal(RenderKind.video),
    source: Type.Optional(Type.Union([Type.Literal('upload'), Type.Literal('pack')])),
  },
  { additionalProperties: false },
);
export type VideoAvatarManifest = Static<typeof VideoAvatarManifest>;

/** Every kind of pack manifest, told apart by `render`. */
export type AnyAvatarManifest =
  AvatarManifest | PhotoAvatarManifest | SpriteAvatarManifest | VideoAvatarManifest;
/** The manifest as a vector one; throws naming the avatar when it is another kind. */
export function vectorManifest(m: AnyAvatarManifest): AvatarManifest {
  if (m.render !== 'vector')
    throw new AvatarPackError(`avatar ${m.id} is a ${m.render} avatar, not a vector one`);
  return m;
}

/** A pack's kind: the protocol's (the HTTP contract and the browser's renderers name it too). */
export { RenderKind } from '@mouthpiece/protocol';

export class AvatarPackError extends CodedError {
  static override code = 'ERR_AVATAR_PACK';
  constructor(message: string) {
    super(message);
    this.name = 'AvatarPackError';
  }
}

/** Validates a parsed manifest; throws AvatarPackError naming the file and every problem. */
export function validateManifest(value: unknown, file: string): AnyAvatarManifest {
  const render = (value as { render?: unknown } | null)?.render;
  const schema =
    render === 'photo'
      ? PhotoAvatarManifest
      : render === 'sprites'
        ? SpriteAvatarManifest
        : render === 'video'
          ? VideoAvatarManifest
          : AvatarManifest;
  if (Value.Check(schema, value)) return value;
  const problems = [...Value.Errors(schema, value)]
    .slice(0, 8)
    .map(
      (e) =>
        `${e.path ? e.path.slice(1).replace(/\//g, '.') : '(root)'} ${e.schema.description ? `must be ${e.schema.description}` : e.message.toLowerCase()}`,
    );
  throw new AvatarPackError(`${file}: ${[...new Set(problems)].join('; ')}`);
}
