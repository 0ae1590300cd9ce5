// The console's build, for the segmenter's composition roots (npm start, the image build) and tests; bundleAssets also builds the demo shop.
export { bundleAssets, bundleConsole, consolePages, type ConsoleBuild } from './bundle';
