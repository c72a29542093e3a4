/** Public surface of the wrappers: the catalogue and stack builder, the named wrappers' classes, chat templates. */
export * from '../registry/wrapperKinds.ts';
export * from '../registry/wrapperCatalog.ts';
export { parseWrapperNames, type PreparedWrappers, type WrapperNames, type WrapperOptions } from '../registry/wrapperStack.ts';
export * from './hookWrapper.ts';
export * from './heldState.ts';
export * from './historyObservation.ts';
export * from './episodeTracking.ts';
export * from './timeLimit.ts';
export * from './chatTemplate.ts';
