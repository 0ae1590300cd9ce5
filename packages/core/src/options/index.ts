export {
  defaultsOf,
  envOption,
  type EnvOption,
  type EnvShapeOf,
  envShapeOf,
  fixedOption,
  fromEnv,
  optionsTable,
  withDefaults,
  type ConfigOf,
  type Option,
  type Options,
} from './options';
