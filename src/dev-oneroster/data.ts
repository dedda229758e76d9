// Generated OneRoster 1.2 rostering data in the REST (JSON) binding, for the development
// provider and the tests: one university with two campuses and a nursing department, a
// school year with one semester, `courses` courses each with a class, a teacher, and students
// enrolled in `enrolmentsPerStudent` classes each.

import { PULLED } from '../domain/oneroster/pull/fetch.ts';
import type { PulledCollection } from '../domain/oneroster/pull/flatten.ts';

export type Json = Record<string, unknown>;

/** What the provider serves: the collections a pull reads. */
export const COLLECTIONS = PULLED;
export type ProviderCollection = PulledCollection;
export type ProviderData = Record<ProviderCollection, Json[]>;

const ref = (type: string, sourcedId: string) => ({ href: `/${type}s/${sourcedId}`, sourcedId, type });

export function generateRoster(options: {
  students: number;
  courses?: number;
  enrolmentsPerStudent?: number;
  stamp?: string;
}): ProviderData {
  const stamp = options.stamp ?? '2026-01-10T00:00:00.000Z';
  const base: Base = { status: 'active', dateLastModified: stamp };
  const courseCount = Math.max(2, options.courses ?? 2);
  const perStudent = Math.min(courseCount, options.enrolmentsPerStudent ?? 1);
  const data: ProviderData = {
    orgs: organisations(base),
    academicSessions: sessions(base),
    courses: [],
    classes: [],
    users: [teacher(base)],
    enrollments: [],
  };
  addCourses(data, base, courseCount);
  data.enrollments.push({
    ...base,
    sourcedId: 'e-t-1',
    role: 'teacher',
    primary: true,
    user: ref('user', 't-1'),
    class: ref('class', 'cl-101-a'),
    school: ref('org', 'org-city'),
  });
  addStudents(data, base, options.students, perStudent, courseCount);
  return data;
}

/** What every record carries: its status and when it last changed. */
interface Base {
  status: string;
  dateLastModified: string;
}

/** The university, its two campuses and its nursing department. */
function organisations(base: Base) {
  return [
    { ...base, sourcedId: 'org-uni', name: 'Northbridge University', type: 'district', identifier: 'NBU' },
    {
      ...base,
      sourcedId: 'org-city',
      name: 'City Campus',
      type: 'school',
      identifier: 'CITY',
      parent: ref('org', 'org-uni'),
    },
    {
      ...base,
      sourcedId: 'org-river',
      name: 'Riverside Campus',
      type: 'school',
      identifier: 'RIVER',
      parent: ref('org', 'org-uni'),
    },
    {
      ...base,
      sourcedId: 'org-nurs',
      name: 'Bachelor of Nursing',
      type: 'department',
      identifier: 'BN',
      parent: ref('org', 'org-uni'),
    },
  ];
}

/** The school year 2026 and its first semester. */
function sessions(base: Base) {
  return [
    {
      ...base,
      sourcedId: 'as-2026',
      title: '2026',
      type: 'schoolYear',
      startDate: '2026-01-01',
      endDate: '2026-12-31',
      schoolYear: '2026',
    },
    {
      ...base,
      sourcedId: 'as-2026-s1',
      title: 'Semester 1, 2026',
      type: 'semester',
      startDate: '2026-02-23',
      endDate: '2026-06-19',
      parent: ref('academicSession', 'as-2026'),
      schoolYear: '2026',
    },
  ];
}

/** The one teacher, of the first class. */
function teacher(base: Base) {
  return {
    ...base,
    sourcedId: 't-1',
    enabledUser: true,
    username: 'teacher1',
    givenName: 'Tess',
    familyName: 'Teacher',
    identifier: 'T1',
    email: 'tess@nbu.example.edu',
    roles: [{ roleType: 'primary', role: 'teacher', org: ref('org', 'org-city') }],
    primaryOrg: ref('org', 'org-city'),
  };
}

/** `courseCount` courses, with one class each in the first semester. */
function addCourses(data: ProviderData, base: Base, courseCount: number): void {
  for (let c = 0; c < courseCount; c++) {
    const code = `NURS${101 + c}`;
    data.courses.push({
      ...base,
      sourcedId: `c-${101 + c}`,
      title: c === 0 ? 'Foundations of Nursing' : `Nursing ${101 + c}`,
      courseCode: code,
      org: ref('org', c % 2 === 0 ? 'org-nurs' : 'org-city'),
    });
    data.classes.push({
      ...base,
      sourcedId: `cl-${101 + c}-a`,
      title: `${code} A`,
      classType: 'scheduled',
      course: ref('course', `c-${101 + c}`),
      school: ref('org', 'org-city'),
      terms: [ref('academicSession', 'as-2026-s1')],
    });
  }
}

/** The students, half at each campus, each enrolled in `perStudent` classes. */
function addStudents(
  data: ProviderData,
  base: Base,
  students: number,
  perStudent: number,
  courseCount: number,
) {
  for (let i = 0; i < students; i++) {
    const campus = i % 2 === 0 ? 'org-city' : 'org-river';
    data.users.push({
      ...base,
      sourcedId: `u-${i}`,
      enabledUser: true,
      username: `student${i}`,
      givenName: `Given${i}`,
      familyName: `Family${i}`,
      identifier: `S${i}`,
      email: `student${i}@nbu.example.edu`,
      roles: [
        { roleType: 'primary', role: 'student', org: ref('org', campus) },
        { roleType: 'secondary', role: 'student', org: ref('org', 'org-nurs') },
      ],
      primaryOrg: ref('org', campus),
      grades: ['13'],
    });
    for (let k = 0; k < perStudent; k++) {
      const c = (i + k) % courseCount;
      data.enrollments.push({
        ...base,
        sourcedId: perStudent === 1 ? `e-${i}` : `e-${i}-${k}`,
        role: 'student',
        primary: false,
        user: ref('user', `u-${i}`),
        class: ref('class', `cl-${101 + c}-a`),
        school: ref('org', 'org-city'),
      });
    }
  }
}
