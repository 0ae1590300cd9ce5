export { parseProgramList, readProgramList, programListPath, type ListedProgram } from './list';
export { requireProgram, findOnPath, ProgramMissingError, type RequireProgramOptions } from './require-program';
export { spawnedNames, type SpawnedName } from './spawned-names';
