/** Task data and graders: what the package exports for users of dataset-backed envs. */
export {
  registerDataset,
  unregisterDataset,
  getRegisteredDataset,
  listDatasets,
  DatasetRegistry,
  defaultDatasets,
  type DatasetRow,
  type RegisteredDataset,
  type DatasetLookup,
  type DatasetContent,
} from './datasetRegistry.ts';
export { readTable, TABLE_EXTENSIONS } from './readTable.ts';
export { resolveDataset, type DatasetSource, type HubLocation } from './datasetSource.ts';
export { TASK_DATASETS, sampleDatasetPath, type TaskDatasetEntry, type SampleName } from './taskCatalog.ts';
export { gradeMathResponse, isEquivalent as mathAnswersEquivalent, type MathGrade } from './graders/math/mathGrader.ts';
export { exactMatch, normaliseAnswer } from './graders/qa/exactMatch.ts';
export { lastBoxed } from './graders/lastBoxed.ts';
