/**
 * Public facts behind the seed portfolio: Texas API county codes (the odd
 * FIPS-style numbers), RRC districts and field names of the big plays. Field numbers,
 * leases, operators and P-5 numbers in the seed are made up but shaped like the real ones.
 */
export interface County {
  name: string;
  code: string;
  district: string;
  lat: number;
  lon: number;
}

export const COUNTIES: Record<string, County> = {
  Midland: { name: 'Midland', code: '329', district: '08', lat: 31.87, lon: -102.03 },
  Martin: { name: 'Martin', code: '317', district: '8A', lat: 32.31, lon: -101.95 },
  Howard: { name: 'Howard', code: '227', district: '8A', lat: 32.31, lon: -101.44 },
  Reagan: { name: 'Reagan', code: '383', district: '7C', lat: 31.37, lon: -101.52 },
  Upton: { name: 'Upton', code: '461', district: '7C', lat: 31.37, lon: -102.04 },
  Glasscock: { name: 'Glasscock', code: '173', district: '8A', lat: 31.87, lon: -101.52 },
  Reeves: { name: 'Reeves', code: '389', district: '08', lat: 31.32, lon: -103.69 },
  Loving: { name: 'Loving', code: '301', district: '08', lat: 31.85, lon: -103.58 },
  Ward: { name: 'Ward', code: '475', district: '08', lat: 31.51, lon: -103.1 },
  Ector: { name: 'Ector', code: '135', district: '08', lat: 31.87, lon: -102.54 },
  Andrews: { name: 'Andrews', code: '003', district: '08', lat: 32.31, lon: -102.64 },
  Yoakum: { name: 'Yoakum', code: '501', district: '8A', lat: 33.17, lon: -102.83 },
  Gaines: { name: 'Gaines', code: '165', district: '8A', lat: 32.74, lon: -102.63 },
  Karnes: { name: 'Karnes', code: '255', district: '02', lat: 28.9, lon: -97.86 },
  LaSalle: { name: 'La Salle', code: '283', district: '01', lat: 28.35, lon: -99.1 },
  Dimmit: { name: 'Dimmit', code: '127', district: '01', lat: 28.42, lon: -99.76 },
  McMullen: { name: 'McMullen', code: '311', district: '01', lat: 28.35, lon: -98.57 },
  Webb: { name: 'Webb', code: '479', district: '04', lat: 27.76, lon: -99.33 },
  Tarrant: { name: 'Tarrant', code: '439', district: '09', lat: 32.77, lon: -97.29 },
  Panola: { name: 'Panola', code: '365', district: '06', lat: 32.16, lon: -94.31 },
};

export interface FieldFact {
  name: string;
  counties: string[];
  formations: string[];
  wellType: 'oil' | 'gas';
  /** Share of the portfolio's wells. */
  weight: number;
}

export const FIELDS: FieldFact[] = [
  {
    name: 'SPRABERRY (TREND AREA)',
    counties: ['Midland', 'Martin', 'Howard', 'Reagan', 'Upton', 'Glasscock'],
    formations: ['Spraberry', 'Wolfcamp A', 'Wolfcamp B'],
    wellType: 'oil',
    weight: 30,
  },
  {
    name: 'PHANTOM (WOLFCAMP)',
    counties: ['Reeves', 'Loving', 'Ward'],
    formations: ['Wolfcamp A', 'Wolfcamp B'],
    wellType: 'oil',
    weight: 12,
  },
  { name: 'HOEFS T-K (WOLFCAMP)', counties: ['Reeves'], formations: ['Wolfcamp A'], wellType: 'oil', weight: 5 },
  {
    name: 'WOLFBONE (TREND AREA)',
    counties: ['Reeves', 'Ward', 'Loving'],
    formations: ['Bone Spring', 'Wolfcamp A'],
    wellType: 'oil',
    weight: 6,
  },
  {
    name: 'GOLDSMITH',
    counties: ['Ector', 'Andrews'],
    formations: ['San Andres', 'Clear Fork'],
    wellType: 'oil',
    weight: 5,
  },
  { name: 'WASSON', counties: ['Yoakum', 'Gaines'], formations: ['San Andres'], wellType: 'oil', weight: 5 },
  {
    name: 'BRISCOE RANCH (EAGLE FORD)',
    counties: ['Dimmit', 'LaSalle'],
    formations: ['Eagle Ford'],
    wellType: 'oil',
    weight: 8,
  },
  {
    name: 'EAGLEVILLE (EAGLE FORD-2)',
    counties: ['LaSalle', 'McMullen'],
    formations: ['Eagle Ford'],
    wellType: 'oil',
    weight: 6,
  },
  {
    name: 'SUGARKANE (EAGLE FORD)',
    counties: ['Karnes'],
    formations: ['Eagle Ford', 'Austin Chalk'],
    wellType: 'oil',
    weight: 7,
  },
  { name: 'HAWKVILLE (EAGLE FORD SHALE)', counties: ['Webb'], formations: ['Eagle Ford'], wellType: 'gas', weight: 5 },
  { name: 'NEWARK, EAST (BARNETT SHALE)', counties: ['Tarrant'], formations: ['Barnett'], wellType: 'gas', weight: 6 },
  {
    name: 'CARTHAGE (HAYNESVILLE SHALE)',
    counties: ['Panola'],
    formations: ['Haynesville'],
    wellType: 'gas',
    weight: 5,
  },
];

export const FORMATIONS: Record<string, { type: string; depth_range: string }> = {
  Spraberry: { type: 'sandstone', depth_range: '6,500-8,500 ft' },
  'Wolfcamp A': { type: 'shale', depth_range: '8,500-10,500 ft' },
  'Wolfcamp B': { type: 'shale', depth_range: '9,500-11,500 ft' },
  'Bone Spring': { type: 'sandstone/carbonate', depth_range: '7,500-10,000 ft' },
  'San Andres': { type: 'carbonate', depth_range: '4,000-5,500 ft' },
  'Clear Fork': { type: 'carbonate', depth_range: '5,500-7,000 ft' },
  'Eagle Ford': { type: 'shale', depth_range: '7,000-12,000 ft' },
  'Austin Chalk': { type: 'chalk', depth_range: '6,500-10,000 ft' },
  Barnett: { type: 'shale', depth_range: '6,500-8,500 ft' },
  Haynesville: { type: 'shale', depth_range: '10,500-13,000 ft' },
};

export const REGULATIONS = [
  {
    entity_id: 'TAC-16-3.5',
    name: 'Application To Drill, Deepen, Reenter, or Plug Back (Form W-1)',
    rule_number: 'Rule 5',
  },
  { entity_id: 'TAC-16-3.14', name: 'Plugging', rule_number: 'Rule 14' },
  {
    entity_id: 'TAC-16-3.15',
    name: 'Surface Equipment Removal Requirements and Inactive Wells',
    rule_number: 'Rule 15',
  },
  { entity_id: 'TAC-16-3.16', name: 'Log and Completion or Plugging Report (Forms W-2, G-1)', rule_number: 'Rule 16' },
  {
    entity_id: 'TAC-16-3.32',
    name: 'Gas Well Gas and Casinghead Gas Shall Be Utilized for Legal Purposes (flaring and venting)',
    rule_number: 'Rule 32',
  },
  { entity_id: 'TAC-16-3.37', name: 'Statewide Spacing Rule', rule_number: 'Rule 37' },
  { entity_id: 'TAC-16-3.38', name: 'Well Densities', rule_number: 'Rule 38' },
  {
    entity_id: 'TAC-16-3.58',
    name: 'Certificate of Compliance and Transportation Authority; Operator Reports (Form PR)',
    rule_number: 'Rule 58',
  },
];

export const LEASE_NAMES = [
  'JONES',
  'UNIVERSITY',
  'SMITH RANCH',
  'BRISCOE',
  'HALEY',
  'MABEE',
  'TXL',
  'DORA ROBERTS',
  'BRUNSON',
  'GLASS',
  'CALVERLEY',
  'SCHARBAUER',
  'HUTT',
  'BLALOCK',
  'WINDHAM',
  'COWDEN',
  'ELLENBURGER',
  'POWELL',
  'SALE RANCH',
  'TOM RANDOLPH',
  'MCKENZIE',
  'SHACKELFORD',
  'ST. LOUIS',
  'BEAL',
  'GUITAR',
  'ZANT',
  'HOGG',
  'BAKER',
  'WOLFE',
  'HALL',
];

export const OPERATOR_WORDS = {
  first: [
    'PECOS',
    'LONE STAR',
    'PERMIAN',
    'CAPROCK',
    'LLANO',
    'BRAZOS',
    'MESQUITE',
    'CROCKETT',
    'RED BLUFF',
    'SANDHILLS',
    'COMANCHE',
    'NUECES',
    'SABINE',
    'TRINITY',
    'CHISHOLM',
  ],
  second: ['BASIN', 'ENERGY', 'RESOURCES', 'PETROLEUM', 'OIL & GAS', 'EXPLORATION', 'MIDSTREAM', 'PRODUCTION'],
  suffix: ['LLC', 'LP', 'INC.', 'OPERATING LLC', 'COMPANY'],
};
