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

const examEvent: EventDef = {
  event: 'exam',
  block: 'e_learning',
  name: 'ExamProps',
  fields: {
    id: req(t.string),
    action: req(t.enum('exam_action', ['start', 'submit', 'result'])),
    is_passed: req(t.boolean),
    score: req(t.float),
    duration: req(t.int, { doc: 'seconds', min: 0 }),
  },
};

const moduleEvent: EventDef = {
  event: 'module',
  block: 'e_learning',
  name: 'ModuleProps',
  fields: {
    id: req(t.string),
    action: req(t.enum('module_action', ['view'])),
    // Percent complete (iOS SDK docs: "the percentage complete for the module"; the data generator
    // sends 100 when a module is finished).
    progress: opt(t.int, { min: 0, max: 100 }),
  },
};

export const eLearningEvents: EventDef[] = [questionEvent, examEvent, moduleEvent];
