import type { Country } from './places.js';

/** Name and address material per country, for the shop's customers. */
interface CountryPeople {
  first: readonly string[];
  last: readonly string[];
  /** [city, region, postal code pattern]: `#` a digit, `@` a letter, other characters kept. */
  cities: ReadonlyArray<readonly [string, string, string]>;
  streets: readonly string[];
  /** Street address order: `12 High Street` (number first) or `Hauptstraße 12`. */
  numberFirst: boolean;
  /** Phone pattern in the country's fictional/drama ranges where one exists. */
  phone: string;
}

const ENGLISH_FIRST = [
  'Olivia',
  'Amelia',
  'Isla',
  'Ava',
  'Mia',
  'Grace',
  'Freya',
  'Emily',
  'Sophie',
  'Ruby',
  'Oliver',
  'George',
  'Harry',
  'Noah',
  'Jack',
  'Leo',
  'Arthur',
  'Oscar',
  'Charlie',
  'James',
  'Priya',
  'Aisha',
  'Hannah',
  'Daniel',
  'Samuel',
];
const ENGLISH_LAST = [
  'Smith',
  'Jones',
  'Taylor',
  'Brown',
  'Williams',
  'Wilson',
  'Johnson',
  'Davies',
  'Patel',
  'Wright',
  'Walker',
  'Thompson',
  'Evans',
  'Roberts',
  'Khan',
  'Clarke',
  'Hughes',
  'Edwards',
  'Green',
  'Hall',
  'Wood',
  'Harris',
  'Lewis',
  'Martin',
  'Jackson',
];

export const PEOPLE: Record<Country, CountryPeople> = {
  GBR: {
    first: ENGLISH_FIRST,
    last: ENGLISH_LAST,
    cities: [
      ['London', 'England', 'E# #@@'],
      ['London', 'England', 'SW## #@@'],
      ['Manchester', 'England', 'M## #@@'],
      ['Bristol', 'England', 'BS# #@@'],
      ['Leeds', 'England', 'LS# #@@'],
      ['Edinburgh', 'Scotland', 'EH# #@@'],
      ['Brighton', 'England', 'BN# #@@'],
      ['Cardiff', 'Wales', 'CF## #@@'],
      ['Glasgow', 'Scotland', 'G## #@@'],
      ['York', 'England', 'YO# #@@'],
    ],
    streets: [
      'High Street',
      'Station Road',
      'Church Lane',
      'Victoria Road',
      'Park Avenue',
      'Queens Road',
      'Mill Lane',
      'Kings Road',
      'Green Lane',
      'The Crescent',
    ],
    numberFirst: true,
    phone: '+44 7700 900###',
  },
  USA: {
    first: [
      'Emma',
      'Olivia',
      'Sophia',
      'Madison',
      'Abigail',
      'Ethan',
      'Mason',
      'Logan',
      'Lucas',
      'Jackson',
      'Aiden',
      'Chloe',
      'Zoe',
      'Carter',
      'Wyatt',
      'Maya',
      'Gabriel',
      'Isabella',
      'Elijah',
      'Harper',
    ],
    last: [
      'Miller',
      'Davis',
      'Garcia',
      'Rodriguez',
      'Martinez',
      'Anderson',
      'Thomas',
      'Moore',
      'Lee',
      'Perez',
      'White',
      'Lopez',
      'Young',
      'Allen',
      'King',
      'Scott',
      'Nguyen',
      'Hill',
      'Flores',
      'Adams',
    ],
    cities: [
      ['New York', 'NY', '100##'],
      ['Brooklyn', 'NY', '112##'],
      ['Los Angeles', 'CA', '900##'],
      ['San Francisco', 'CA', '941##'],
      ['Chicago', 'IL', '606##'],
      ['Austin', 'TX', '787##'],
      ['Seattle', 'WA', '981##'],
      ['Boston', 'MA', '021##'],
      ['Denver', 'CO', '802##'],
      ['Portland', 'OR', '972##'],
    ],
    streets: [
      'Main Street',
      'Oak Avenue',
      'Maple Drive',
      'Washington Street',
      'Park Place',
      'Cedar Lane',
      'Elm Street',
      'Lake Shore Drive',
      'Sunset Boulevard',
      'Pine Street',
    ],
    numberFirst: true,
    phone: '+1 202-555-01##',
  },
  DEU: {
    first: [
      'Lena',
      'Anna',
      'Marie',
      'Sophie',
      'Lea',
      'Hannah',
      'Paul',
      'Leon',
      'Lukas',
      'Finn',
      'Jonas',
      'Felix',
      'Emma',
      'Mia',
      'Ben',
      'Noah',
    ],
    last: [
      'Müller',
      'Schmidt',
      'Schneider',
      'Fischer',
      'Weber',
      'Meyer',
      'Wagner',
      'Becker',
      'Schulz',
      'Hoffmann',
      'Koch',
      'Richter',
      'Klein',
      'Wolf',
    ],
    cities: [
      ['Berlin', 'Berlin', '10###'],
      ['Hamburg', 'Hamburg', '20###'],
      ['München', 'Bayern', '80###'],
      ['Köln', 'Nordrhein-Westfalen', '50###'],
      ['Frankfurt am Main', 'Hessen', '60###'],
      ['Leipzig', 'Sachsen', '04###'],
    ],
    streets: ['Hauptstraße', 'Schulstraße', 'Gartenstraße', 'Bahnhofstraße', 'Lindenstraße', 'Bergstraße', 'Kirchweg', 'Rosenweg'],
    numberFirst: false,
    phone: '+49 30 ########',
  },
  IRL: {
    first: [
      'Saoirse',
      'Aoife',
      'Niamh',
      'Ciara',
      'Siobhan',
      'Conor',
      'Cian',
      'Oisín',
      'Seán',
      'Darragh',
      'Fiadh',
      'Tadhg',
      'Róisín',
      'Eoin',
    ],
    last: [
      'Murphy',
      'Kelly',
      "O'Sullivan",
      'Walsh',
      "O'Brien",
      'Byrne',
      'Ryan',
      "O'Connor",
      "O'Neill",
      'Doyle',
      'McCarthy',
      'Gallagher',
      'Kennedy',
      'Lynch',
    ],
    cities: [
      ['Dublin', 'Dublin', 'D0# @#@#'],
      ['Cork', 'Cork', 'T12 @#@#'],
      ['Galway', 'Galway', 'H91 @#@#'],
      ['Limerick', 'Limerick', 'V94 @#@#'],
    ],
    streets: ['Main Street', 'Church Road', 'Strand Road', 'Abbey Street', 'Patrick Street', 'Castle Street'],
    numberFirst: true,
    phone: '+353 1 ### ####',
  },
  FRA: {
    first: ['Camille', 'Léa', 'Manon', 'Chloé', 'Inès', 'Louis', 'Gabriel', 'Hugo', 'Arthur', 'Jules', 'Lucas', 'Alice', 'Nathan', 'Jade'],
    last: [
      'Martin',
      'Bernard',
      'Dubois',
      'Thomas',
      'Robert',
      'Richard',
      'Petit',
      'Durand',
      'Leroy',
      'Moreau',
      'Simon',
      'Laurent',
      'Lefebvre',
      'Michel',
    ],
    cities: [
      ['Paris', 'Île-de-France', '750##'],
      ['Lyon', 'Auvergne-Rhône-Alpes', '6900#'],
      ['Marseille', "Provence-Alpes-Côte d'Azur", '130##'],
      ['Bordeaux', 'Nouvelle-Aquitaine', '33000'],
      ['Lille', 'Hauts-de-France', '59000'],
    ],
    streets: ['Rue de la Paix', 'Rue Victor Hugo', 'Avenue Jean Jaurès', 'Rue du Moulin', 'Boulevard Voltaire', 'Rue de la République'],
    numberFirst: true,
    phone: '+33 1 ## ## ## ##',
  },
  NLD: {
    first: ['Sanne', 'Fenna', 'Lotte', 'Julia', 'Eva', 'Daan', 'Sem', 'Lucas', 'Milan', 'Levi', 'Bram', 'Tess', 'Noor', 'Finn'],
    last: [
      'de Jong',
      'Jansen',
      'de Vries',
      'van den Berg',
      'van Dijk',
      'Bakker',
      'Janssen',
      'Visser',
      'Smit',
      'Meijer',
      'de Boer',
      'Mulder',
    ],
    cities: [
      ['Amsterdam', 'Noord-Holland', '10## @@'],
      ['Rotterdam', 'Zuid-Holland', '30## @@'],
      ['Utrecht', 'Utrecht', '35## @@'],
      ['Den Haag', 'Zuid-Holland', '25## @@'],
    ],
    streets: ['Dorpsstraat', 'Kerkstraat', 'Prinsengracht', 'Molenweg', 'Stationsweg', 'Julianalaan'],
    numberFirst: false,
    phone: '+31 20 ### ####',
  },
};

const LETTERS = 'ABDEFHJLNPRSTUWXY';

/** Fills a pattern (`#` digit, `@` letter) from a hash value. */
export function fillPattern(pattern: string, hash: number): string {
  let out = '';
  let h = hash;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '#') {
      out += String(h % 10);
      h = Math.floor(h / 10) || hash ^ (i * 0x9e3779b1);
    } else if (ch === '@') {
      out += LETTERS[h % LETTERS.length];
      h = Math.floor(h / LETTERS.length) || hash ^ (i * 0x85ebca6b);
    } else out += ch;
  }
  return out;
}

/** Country shares of the shop's customers. */
export const CUSTOMER_COUNTRIES: ReadonlyArray<readonly [Country, number]> = [
  ['GBR', 0.45],
  ['USA', 0.25],
  ['DEU', 0.1],
  ['FRA', 0.08],
  ['IRL', 0.07],
  ['NLD', 0.05],
];

export const EMAIL_DOMAINS = ['example.com', 'example.net', 'example.org'];

export const CUSTOMER_NOTES = [
  'VIP customer',
  'Wholesale account',
  'Prefers email contact',
  'Tax-exempt: certificate on file',
  'Gift orders only',
  'Do not send marketing',
];
