import { opt, req, t, type EventDef } from '../dsl/types';

/** E-learning block events (spec 6, E-learning). */
const questionEvent: EventDef = {
  event: 'question',
  block: 'e_learning',
  name: 'QuestionProps',
  fields: {
    id: req(t.string),
    action: req(t.enum('question_action', ['answer', 'skip'])),
    answer_id: req(t.string),
    exam_id: req(t.string),
  },
};

const EXAM_STEP = 'an exam step reported as it happens has no result yet (start, submit) or no duration (result)';

const examEvent: EventDef = {
  event: 'exam',
  block: 'e_learning',
  name: 'ExamProps',
  fields: {
    id: req(t.string),
    action: req(t.enum('exam_action', ['start', 'submit', 'result'])),
    is_passed: req(t.boolean, { importMayOmit: EXAM_STEP }),
    score: req(t.float, { importMayOmit: EXAM_STEP }),
    duration: req(t.int, { doc: 'seconds', min: 0, importMayOmit: EXAM_STEP }),
  },
};

const moduleEvent: EventDef = {
  event: 'module',
  block: 'e_learning',
  name: 'ModuleProps',
  fields: {
    id: req(t.string),
    action: req(t.enum('module_action', ['view'])),
    progress: opt(t.int),
  },
};

export const eLearningEvents: EventDef[] = [questionEvent, examEvent, moduleEvent];
