import { printItem, printList, type Listing } from './output-format';
import { captureOutput } from './testing/capture-output';

interface Pet {
  id: string;
  name: string;
}

const pets: Pet[] = [
  { id: '1', name: 'Rex' },
  { id: '22', name: 'Bartholomew' },
];
const listing: Listing<Pet> = {
  columns: [
    ['ID', (pet) => pet.id],
    ['NAME', (pet) => pet.name],
  ],
  id: (pet) => pet.id,
  empty: 'no pets',
};

describe('printList', () => {
  it('prints a table with a header, each column as wide as its widest cell', async () => {
    const output = captureOutput();
    await printList(pets, listing, {}, output);
    expect(output.stdout).toEqual(['ID  NAME', '1   Rex', '22  Bartholomew']);
  });

  it('prints only the ids with --quiet, and nothing for an empty list', async () => {
    const output = captureOutput();
    await printList(pets, listing, { quiet: true }, output);
    await printList([], listing, { quiet: true }, output);
    expect(output.stdout).toEqual(['1', '22']);
  });

  it('prints the items as one JSON document with --output json or --json, and as YAML with --output yaml', async () => {
    for (const options of [{ output: 'json' as const }, { json: true }]) {
      const output = captureOutput();
      await printList(pets, listing, options, output);
      expect(JSON.parse(output.stdout.join('\n'))).toEqual(pets);
    }
    const yaml = captureOutput();
    await printList(pets, listing, { output: 'yaml' }, yaml);
    expect(yaml.stdout).toEqual(['- id: "1"\n  name: Rex\n- id: "22"\n  name: Bartholomew']);
  });

  it('says so when there is nothing, in a table', async () => {
    const output = captureOutput();
    await printList([], listing, {}, output);
    expect(output.stdout).toEqual(['no pets']);
  });
});

describe('printItem', () => {
  it('prints the id with --quiet, the document with --output, else what the command prints for people', async () => {
    const printed = async (options: Parameters<typeof printItem>[2]) => {
      const output = captureOutput();
      await printItem(pets[1], '22', options, output, () => output.out('pet 22 is Bartholomew'));
      return output.stdout;
    };
    expect(await printed({ quiet: true })).toEqual(['22']);
    expect(await printed({ output: 'yaml' })).toEqual(['id: "22"\nname: Bartholomew']);
    expect(await printed({})).toEqual(['pet 22 is Bartholomew']);
  });
});
