import { opt, req, t, type EventDef } from '../dsl/types';

/** E-learning block events (spec 6, E-learning). */
const questionEvent: EventDef = {
  event: 'question',
  block: 'e_learning',
  name: 'QuestionProps',
  fields: {
    id: req(t.string),
    action: req(t.enum('question_action', ['answer', 'skip'], { extensions: ['other'] })),
    answer_id: req(t.string, { clientOmits: 'the Kenkai iOS client leaves it out when there is no answer (skip)' }),
    exam_id: req(t.string),
  },
};

const examEvent: EventDef = {
  event: 'exam',
  block: 'e_learning',
  name: 'ExamProps',
  fields: {
    id: req(t.string),
    action: req(t.enum('exam_action', ['start', 'submit', 'result'], { extensions: ['other'] })),
    // Kenkai's ExamObject has them optional: only submit (duration) and result (score, is_passed) need them.
    is_passed: req(t.boolean, { clientOmits: 'the Kenkai iOS client sends it only for result' }),
    score: req(t.float, { clientOmits: 'the Kenkai iOS client sends it only for result' }),
    duration: req(t.int, { doc: 'seconds', min: 0, clientOmits: 'the Kenkai iOS client sends it only for submit' }),
  },
};

const moduleEvent: EventDef = {
  event: 'module',
  block: 'e_learning',
  name: 'ModuleProps',
  fields: {
    id: req(t.string),
    action: req(t.enum('module_action', ['view'], { extensions: ['other'] })),
    // Percent complete (iOS SDK docs: "the percentage complete for the module"; the data generator
    // sends 100 when a module is finished).
    progress: opt(t.int, { min: 0, max: 100 }),
  },
};

export const eLearningEvents: EventDef[] = [questionEvent, examEvent, moduleEvent];
