// Renders that may leave the event loop (issue 25 item 7): the inline slice, the request a render thread answers.
export { OffloadingRenderer, type Renderer } from './offloading-renderer';
export { SettledRenderCache } from './settled-render-cache';
export {
  answerRenderRequest,
  RENDER_REQUEST_MODULE,
  settledOf,
  toRenderRequest,
  type OffloadRender,
  type RenderOp,
  type RenderReply,
  type RenderRequest,
} from './render-request';
