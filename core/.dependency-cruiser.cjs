// The layers of core/src, enforced in npm test (`depcruise --config .dependency-cruiser.cjs src`).
// Lowest first, as docs/architecture.md draws them: a module imports from its own layer or a lower one,
// and no runtime import cycle exists anywhere. Type-only imports are free (they vanish at run time).
const LAYERS = ['core', 'sandbox', 'data', 'registry', 'wrappers', 'tools', 'multiagent', 'envs', 'vector', 'server', 'eval', 'ui', 'cli'];

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'a runtime import cycle',
      severity: 'error',
      from: {},
      to: { circular: true, dependencyTypesNot: ['type-only'] },
    },
    ...LAYERS.slice(0, -1).map((layer, i) => ({
      name: `${layer}-imports-no-higher-layer`,
      comment: `src/${layer} sits below ${LAYERS.slice(i + 1).join(', ')} (docs/architecture.md)`,
      severity: 'error',
      from: { path: `^src/${layer}/` },
      to: { path: `^src/(${LAYERS.slice(i + 1).join('|')})/`, dependencyTypesNot: ['type-only'] },
    })),
    {
      name: 'registry-binds-no-data',
      comment: 'options that name data are bound by the registration\'s binding hook (core/spec.ts OptionBinding), not by the registry; the process\'s registry and its datasets are the library edge (envs/defaultRegistry.ts)',
      severity: 'error',
      from: { path: '^src/registry/' },
      to: { path: '^src/data/', dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    tsPreCompilationDeps: false,
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
