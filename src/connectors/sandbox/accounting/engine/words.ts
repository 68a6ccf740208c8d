/** Word lists the Sandbox builds names, addresses and descriptions from. */

export const FIRST_NAMES = [
  'Oliver', 'Amelia', 'George', 'Isla', 'Harry', 'Ava', 'Noah', 'Mia', 'Jack', 'Ivy', 'Leo', 'Lily', 'Arthur', 'Freya',
  'Muhammad', 'Florence', 'Oscar', 'Willow', 'Charlie', 'Rosie', 'Henry', 'Sophia', 'Thomas', 'Grace', 'James', 'Evie',
  'William', 'Poppy', 'Alfie', 'Emily', 'Daniel', 'Hannah', 'Samuel', 'Chloe', 'Joseph', 'Ella', 'Ethan', 'Zara',
  'Lucas', 'Maya', 'Michael', 'Sarah', 'David', 'Laura', 'Robert', 'Emma', 'Anna', 'Paul', 'Claire', 'Mark', 'Julia',
  'Priya', 'Arjun', 'Sofia', 'Mateo', 'Lena', 'Jonas', 'Chiara', 'Luca', 'Elena', 'Hugo', 'Camille', 'Sean', 'Aoife',
];

export const LAST_NAMES = [
  'Smith', 'Jones', 'Taylor', 'Brown', 'Williams', 'Wilson', 'Johnson', 'Davies', 'Robinson', 'Wright', 'Thompson',
  'Evans', 'Walker', 'White', 'Roberts', 'Green', 'Hall', 'Wood', 'Jackson', 'Clarke', 'Patel', 'Khan', 'Lewis',
  'Harris', 'Martin', 'Cooper', 'King', 'Lee', 'Baker', 'Harrison', 'Morgan', 'Allen', 'Young', 'Scott', 'Mitchell',
  'Turner', 'Hughes', 'Edwards', 'Hill', 'Moore', 'Clark', 'Ward', 'Carter', 'Phillips', 'Shaw', 'Marshall', 'Bennett',
  'Gray', 'Ellis', 'Russell', 'Palmer', 'Holmes', 'Mills', 'Barker', 'Knight', 'Fletcher', 'Stevens', 'Dixon', 'Hunt',
  'Reid', 'Fox', 'Mason', 'Grant', 'Chapman', 'Kelly', 'Murray', 'Webb', 'Foster', 'Pearce', 'Sutton', 'Hayes',
  'Ashworth', 'Blackwood', 'Carrington', 'Dunmore', 'Fairfax', 'Greystone', 'Hartley', 'Kingsley', 'Lockwood',
  'Merriweather', 'Northcott', 'Oakley', 'Pemberton', 'Radcliffe', 'Sinclair', 'Thornbury', 'Whitmore', 'Weston',
  'Ashby', 'Bradford', 'Calloway', 'Dalton', 'Ellington', 'Fenwick', 'Garrison', 'Hawthorne', 'Irving', 'Jennings',
  'Keating', 'Langley', 'Maddox', 'Norwood', 'Osborne', 'Prescott', 'Quinn', 'Rowland', 'Stratton', 'Tennant',
  'Underwood', 'Vaughan', 'Warwick', 'Yardley', 'Becker', 'Dubois', 'Rossi', 'Jansen', 'Moreau', 'Schmidt', 'Garcia',
];

export const BUSINESS_WORDS = [
  'Logistics', 'Consulting', 'Engineering', 'Design', 'Trading', 'Foods', 'Textiles', 'Software', 'Analytics', 'Media',
  'Construction', 'Interiors', 'Print', 'Electrical', 'Plumbing', 'Marine', 'Aviation', 'Health', 'Dental', 'Optics',
  'Robotics', 'Energy', 'Solar', 'Water', 'Packaging', 'Furniture', 'Brewing', 'Bakery', 'Catering', 'Events',
  'Security', 'Cleaning', 'Recruitment', 'Legal', 'Accounting', 'Architecture', 'Landscaping', 'Motors', 'Cycles',
  'Outdoor', 'Apparel', 'Cosmetics', 'Pharma', 'Labs', 'Systems', 'Networks', 'Telecom', 'Studios', 'Publishing',
  'Ceramics', 'Glassworks', 'Metalworks', 'Timber', 'Stone', 'Farms', 'Nurseries', 'Vineyards', 'Coffee', 'Tea', 'Home',
];

export const SUFFIX_GB = ['Ltd', 'Limited', 'Ltd', 'LLP', 'Group Ltd', '& Co', 'Holdings Ltd', 'Partners'];
export const SUFFIX_US = ['Inc.', 'LLC', 'Corp.', 'Co.', 'Group LLC', 'Partners', 'Holdings Inc.', 'LLC'];
export const SUFFIX_EU = ['GmbH', 'B.V.', 'SARL', 'S.L.', 'S.r.l.', 'AG', 'GmbH & Co. KG', 'Ltd'];

export const STREETS = [
  'High', 'Station', 'Church', 'Victoria', 'Park', 'Mill', 'Market', 'Queen', 'King', 'Bridge', 'North', 'South',
  'Green', 'Manor', 'Castle', 'Orchard', 'Riverside', 'Meadow', 'Harbour', 'Chapel', 'Albert', 'York', 'London', 'Oak',
  'Elm', 'Cedar', 'Willow', 'Granby', 'Princes', 'Regent',
];
export const STREET_TYPES_GB = ['Street', 'Road', 'Lane', 'Avenue', 'Way', 'Close', 'Court', 'Place'];
export const STREET_TYPES_US = ['Street', 'Avenue', 'Boulevard', 'Drive', 'Road', 'Lane', 'Parkway', 'Court'];

/** [city, region, postcode area]. */
export const CITIES_GB: readonly (readonly [string, string, string])[] = [
  ['London', 'Greater London', 'EC1'], ['Manchester', 'Greater Manchester', 'M1'], ['Birmingham', 'West Midlands', 'B1'],
  ['Leeds', 'West Yorkshire', 'LS1'], ['Bristol', 'Bristol', 'BS1'], ['Edinburgh', 'City of Edinburgh', 'EH1'],
  ['Glasgow', 'Glasgow City', 'G1'], ['Cardiff', 'Cardiff', 'CF10'], ['Liverpool', 'Merseyside', 'L1'],
  ['Nottingham', 'Nottinghamshire', 'NG1'], ['Sheffield', 'South Yorkshire', 'S1'], ['Cambridge', 'Cambridgeshire', 'CB1'],
  ['Oxford', 'Oxfordshire', 'OX1'], ['Brighton', 'East Sussex', 'BN1'], ['Newcastle upon Tyne', 'Tyne and Wear', 'NE1'],
  ['York', 'North Yorkshire', 'YO1'], ['Bath', 'Somerset', 'BA1'], ['Reading', 'Berkshire', 'RG1'],
];

/** [city, state, zip prefix]. */
export const CITIES_US: readonly (readonly [string, string, string])[] = [
  ['New York', 'NY', '100'], ['Boston', 'MA', '021'], ['Chicago', 'IL', '606'], ['Austin', 'TX', '787'],
  ['Seattle', 'WA', '981'], ['San Francisco', 'CA', '941'], ['Denver', 'CO', '802'], ['Atlanta', 'GA', '303'],
  ['Portland', 'OR', '972'], ['Miami', 'FL', '331'], ['Philadelphia', 'PA', '191'], ['Minneapolis', 'MN', '554'],
];

/** [city, region, country, country dialling code, postcode digits]. */
export const CITIES_EU: readonly (readonly [string, string, string, string, number])[] = [
  ['Berlin', 'Berlin', 'Germany', '49', 5], ['Munich', 'Bavaria', 'Germany', '49', 5], ['Hamburg', 'Hamburg', 'Germany', '49', 5],
  ['Paris', 'Île-de-France', 'France', '33', 5], ['Lyon', 'Auvergne-Rhône-Alpes', 'France', '33', 5],
  ['Amsterdam', 'North Holland', 'Netherlands', '31', 4], ['Rotterdam', 'South Holland', 'Netherlands', '31', 4],
  ['Dublin', 'Leinster', 'Ireland', '353', 0], ['Madrid', 'Community of Madrid', 'Spain', '34', 5],
  ['Barcelona', 'Catalonia', 'Spain', '34', 5], ['Milan', 'Lombardy', 'Italy', '39', 5], ['Vienna', 'Vienna', 'Austria', '43', 4],
];

export const PRODUCT_ADJECTIVES = [
  'Standard', 'Premium', 'Compact', 'Heavy-Duty', 'Deluxe', 'Eco', 'Classic', 'Pro', 'Mini', 'Industrial', 'Slimline',
  'Modular', 'Portable', 'Reinforced', 'Smart', 'Universal',
];
export const PRODUCT_NOUNS = [
  'Widget', 'Bracket', 'Cable Kit', 'Desk Lamp', 'Storage Box', 'Filter', 'Sensor', 'Valve', 'Pump', 'Shelf Unit',
  'Toolkit', 'Battery Pack', 'Router', 'Monitor Arm', 'Chair', 'Workbench', 'Fastener Set', 'Hinge', 'Gasket', 'Panel',
  'Display Stand', 'Charger', 'Adapter', 'Coffee Blend', 'Tea Selection', 'Notebook', 'Backpack', 'Water Bottle',
];
export const SERVICE_NOUNS = [
  'Consulting', 'Installation', 'Maintenance', 'Training', 'Support Plan', 'Design Work', 'Project Management',
  'Audit', 'Implementation', 'Site Survey', 'Copywriting', 'Photography', 'Data Migration', 'Strategy Workshop',
];
export const SERVICE_LEVELS = ['Standard', 'Senior', 'Express', 'Day Rate', 'Hourly', 'Monthly'];
export const MATERIALS = [
  'Steel Sheet', 'Aluminium Bar', 'Cardboard Cartons', 'Bubble Wrap', 'Pallets', 'Copper Wire', 'Paint', 'Timber Boards',
  'Fabric Roll', 'Printer Paper', 'Ink Cartridges', 'Cleaning Supplies', 'Resin', 'Labels', 'Screws (box)', 'Glue',
];
export const UNITS = ['each', 'box', 'kg', 'metre', 'roll', 'litre', 'pack', 'hour'];
