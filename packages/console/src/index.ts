// The console's build, for the segmenter's composition roots (npm start, the image build) and tests.
export { bundleConsole, consolePages, type ConsoleBuild } from './bundle';
