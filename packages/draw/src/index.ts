/** @mouthpiece/draw: vector and sprite avatar drawing on any Canvas2D (docs/design.md §13). */
export {
  context2d,
  DrawError,
  type CanvasFactory,
  type CanvasLike,
  type Context2D,
  type Defer,
  type Gradient,
  type ImageLike,
  type Pixels,
} from './canvas.js';
export type { FaceMotion, FacePose, MouthParams, VectorLook, Viseme } from './face.js';
export { MOUTH_SHAPES, VISEMES } from './mouth-shapes.js';
export { shade, withAlpha } from './color.js';
export {
  drawBackground,
  drawBody,
  drawFeatures,
  drawHead,
  drawHeadOver,
  drawHeadUnder,
  drawMouth,
  geometry,
  headTransform,
  type FaceGeometry,
} from './vector-face.js';
export {
  createVectorCache,
  TILT_STEP,
  type VectorCache,
  type VectorCacheOptions,
  type VectorDrawer,
} from './vector-renderer.js';
export {
  createSpriteCache,
  nearestShapes,
  type Rect,
  type SpriteCache,
  type SpriteDrawer,
  type SpriteLook,
  type SpritePictures,
} from './sprite-renderer.js';
