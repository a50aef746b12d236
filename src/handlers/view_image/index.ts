export {
  DEFAULT_MAX_IMAGE_BYTES,
  VIEW_IMAGE_SPEC,
  ViewImageHandler,
  type ViewImageToolConfig,
  viewImageToolFactory,
} from "./handler.js";
