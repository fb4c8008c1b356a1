/**
 * @mouthpiece/draw: vector, sprite and photo avatar drawing (Canvas2D; the photo rig and inner mouth for
 * any raster), and the video avatar's I420 compositing (video/), shared by the engine and the browser
 * (docs/design.md §13).
 */
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
export {
  applySimilarity,
  i420Bytes,
  i420ToRgba,
  i420View,
  invertSimilarity,
  type I420View,
  type Similarity,
} from './video/i420.js';
export { seamMask, type SeamMask } from './video/seam-mask.js';
export type { MouthDescriptor, VideoBox, VideoIndex } from './video/video-index.js';
export {
  compositeI420,
  outputRect,
  premultipliedFor,
  scaleI420Cover,
  type CompositeJob,
  type PixelRect,
  type Premultiplied,
} from './video/composite.js';
export {
  colourShift,
  composeReach,
  composeVideoPick,
  loopFrame,
  MAX_COLOUR_SHIFT,
  pickFits,
  videoLayout,
  videoScratch,
  type VideoLayout,
  type VideoPick,
  type VideoScratch,
} from './video/video-frame.js';
export {
  MESH,
  MESH_TRIANGLES,
  RING,
  UNDER_NOSE,
  meshFrame,
  meshVertices,
  targetLandmarks,
  type FlatLandmarks,
  type MeshFrame,
} from './video/face-mesh.js';
export {
  buildRig,
  modeWeights,
  place,
  pose,
  MODES,
  PHOTO_POSE,
  PHOTO_WIDTH,
  type Mode,
  type PhotoRig,
  type PhotoSampler,
  type Vec,
} from './photo/photo-rig.js';
export { triangulate } from './photo/delaunay.js';
export { fillTriangle, warpTriangle, type Image32 } from './photo/mesh-warp.js';
export { createInnerMouth, type InnerMouthFrame } from './photo/inner-mouth.js';
export { mouthColours, type MouthColours } from './photo/mouth-colours.js';
export {
  faceAxes,
  photoFramePose,
  photoLayout,
  pixelSampler,
  PHOTO_MARGIN,
  PHOTO_MAX_STEP,
  PHOTO_TILT_STEP,
  type PhotoFramePose,
  type PhotoLayout,
} from './photo/photo-layout.js';
export { cavityBox, markTriangles, triangleAt, type PixelBox } from './photo/photo-cavity.js';
