// The demo institution's data: believable names, programs, campuses, a term and its units,
// generated the same way every time (no randomness), so two demos look alike.

export const PROGRAMS = [
  {
    program_code: 'BN',
    name: 'Bachelor of Nursing',
    coordinator_name: 'Dr Priya Raman',
    coordinator_title: 'Course coordinator',
  },
  {
    program_code: 'BSC',
    name: 'Bachelor of Science',
    coordinator_name: 'Prof. Tomás Ruiz',
    coordinator_title: 'Course coordinator',
  },
  {
    program_code: 'BED',
    name: 'Bachelor of Education',
    coordinator_name: 'Dr Hana Sato',
    coordinator_title: 'Course coordinator',
  },
  {
    program_code: 'BBUS',
    name: 'Bachelor of Business',
    coordinator_name: 'Ms Chloe Martin',
    coordinator_title: 'First-year adviser',
  },
];

export const CAMPUSES = [{ name: 'City' }, { name: 'Riverside' }, { name: 'Online' }];

export const TERMS = [
  { term_code: '2027-S1', name: 'Semester 1, 2027', start_date: '2027-02-22', end_date: '2027-06-20' },
];

export const UNITS = [
  { unit_code: 'NUR101', name: 'Foundations of Nursing Practice', program_code: 'BN', campus_name: 'City' },
  { unit_code: 'NUR102', name: 'Anatomy and Physiology 1', program_code: 'BN', campus_name: 'City' },
  { unit_code: 'SCI110', name: 'Chemistry for Life Sciences', program_code: 'BSC', campus_name: 'Riverside' },
  { unit_code: 'SCI120', name: 'Introductory Statistics', program_code: 'BSC', campus_name: 'Riverside' },
  { unit_code: 'EDU101', name: 'Learning and Development', program_code: 'BED', campus_name: 'Online' },
  { unit_code: 'EDU102', name: 'Literacy in the Classroom', program_code: 'BED', campus_name: 'Online' },
  { unit_code: 'BUS101', name: 'Principles of Accounting', program_code: 'BBUS', campus_name: 'City' },
  { unit_code: 'BUS102', name: 'Business Communication', program_code: 'BBUS', campus_name: 'City' },
];

const FIRST = [
  'Ana',
  'Ben',
  'Chloé',
  'Dev',
  'Emeka',
  'Fatima',
  'Grace',
  'Hiro',
  'Isla',
  'Jonah',
  'Kiri',
  'Liam',
  'Maya',
  'Nikhil',
  'Olivia',
  'Pita',
  'Quinn',
  'Rosa',
  'Sione',
  'Tara',
  'Uma',
  'Viktor',
  'Wen',
  'Yusuf',
  'Zara',
];
const LAST = [
  'Lima',
  'Okafor',
  'Nguyen',
  'Patel',
  'Walker',
  'Haddad',
  'Kowalski',
  'Tanaka',
  'Murphy',
  'Reid',
  'Ngata',
  'Brown',
  'Singh',
  'Rossi',
  'Ahmed',
  'Tupou',
];

export interface DemoStudent {
  email: string;
  student_id_ext: string;
  first_name: string;
  last_name: string;
  program_code: string;
  campus_name: string;
  first_in_family: boolean;
  start_date: string;
}

/** `count` students; the first two are the development provider's Ana Lima and Ben Okafor. */
export function demoStudents(count: number): DemoStudent[] {
  return Array.from({ length: count }, (_, i) => {
    const first = FIRST[i % FIRST.length];
    const last = LAST[(i * 7) % LAST.length];
    const program = PROGRAMS[i % PROGRAMS.length];
    const local = `${first}.${last}`
      .normalize('NFD')
      .replace(/[^\w.]/g, '')
      .toLowerCase();
    return {
      email: i < 2 ? `${local}@student.example.edu` : `${local}${i}@student.example.edu`,
      student_id_ext: `NB${String(27000 + i).padStart(6, '0')}`,
      first_name: first,
      last_name: last,
      program_code: program.program_code,
      campus_name: UNITS.find((u) => u.program_code === program.program_code)!.campus_name,
      first_in_family: i % 3 === 0,
      start_date: '2027-02-22',
    };
  });
}

/** Rows a SIS export gets wrong, pushed once so the push history shows row errors. */
export const BAD_ROSTER_ROWS = [
  { email: 'not-an-email', student_id_ext: 'NB099001', first_name: 'Broken', last_name: 'Email' },
  { student_id_ext: 'NB099002', first_name: 'No', last_name: 'Email' },
];

/** Help requests in every state, with what staff wrote on them. */
export const HELP_REQUESTS: {
  student: number;
  priority: string;
  summary: string;
  status: string;
  notes: string[];
}[] = [
  {
    student: 0,
    priority: 'normal',
    summary: 'Cannot find my timetable for NUR101',
    status: 'new',
    notes: [],
  },
  {
    student: 1,
    priority: 'high',
    summary: 'Struggling to keep up with readings and work shifts',
    status: 'ack',
    notes: ['Called Ben; booking a study-skills session.'],
  },
  {
    student: 2,
    priority: 'normal',
    summary: 'Question about paying fees in instalments',
    status: 'in_progress',
    notes: ['Referred to the fees office.', 'Fees office replied; waiting for the student.'],
  },
  {
    student: 3,
    priority: 'low',
    summary: 'How do I join a study group?',
    status: 'resolved',
    notes: ['Sent the study-group sign-up link.'],
  },
  {
    student: 4,
    priority: 'crisis',
    summary: 'Feeling overwhelmed and unsafe',
    status: 'in_progress',
    notes: ['Crisis line details given; wellbeing team following up today.'],
  },
  {
    student: 5,
    priority: 'normal',
    summary: 'Laptop loan for the semester',
    status: 'resolved',
    notes: ['Laptop collected from the library.'],
  },
];
